import type { JSONSchema7 } from '@ai-sdk/provider';
import { convertToModelMessages, jsonSchema, stepCountIs, tool, type ToolSet, type UIMessage } from 'ai';
import type { ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import type { RunCase } from '../../sql/agent-evaluations.ts';
import type { FullDefinition } from '../../sql/agent-versions.ts';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import { fitEveryCall } from '../chat/context-window.ts';
import { hasBlockedTerm } from '../chat/guardrails.ts';
import { boundedResult, asToolFailure } from '../chat/tool-map.ts';
import { describeFailure } from '../chat/turn-failure.ts';
import { callSettingsOf, systemMessageOf } from '../chat/turn.ts';
import type { AppDeps } from '../core/deps.ts';
import { callModel } from '../metering/call.ts';
import { modelFor, type ChatModel } from '../metering/models.ts';
import { listingOf, type DiscoveredTool } from '../mcp-client/tool-discovery.ts';
import { findBuiltinTool, parseProviderKey } from '../tools/builtins.ts';
import { builtinInputSchema } from '../tools/tool-input.ts';

/*
 * One case of an evaluation run (docs/evaluations.md, "Runs" and "Tools in a run"): the case's
 * messages answered by the tried definition as a chat turn would answer them (its system
 * message, settings, context window and step limit), except that no tool acts.
 */

/** What a tool that would act answers in a run; the model reads it as the tool's result. */
export const NOT_RUN_TEXT = 'not run in an evaluation';

/** The built-in tools that only read the agent's own knowledge base: they run in an evaluation. */
const READING_TOOLS = new Set(['search_knowledge_base', 'list_documents']);

/** Whose run: the organization, the agent and the user who started it (its usage rows and reading tools act for them). */
export type RunOwner = { organizationId: string; agentId: string; userId: string | null };

/** What each usage row of a run carries (docs/evaluations.md, "Cost"). */
export const EVALUATION_METADATA = { evaluation: true } as const;

export type CaseAnswer = {
  answer: string;
  toolCalls: { toolName: string; input: unknown }[];
  /** The case could not be answered (the provider failed, a budget refused the call, the deadline passed): its text. */
  failure: string | null;
  /** The case's model calls as measured (priced by the runner). */
  metered: MeteredUsage[];
};

/** One model call's tokens, with its model. */
export type MeteredUsage = { modelId: string; inputTokens: number; cacheReadTokens: number; outputTokens: number };

/**
 * The tools of a run: the definition's offered tools (every level but `blocked`), none asking for
 * an approval. MCP tools carry the schema their server lists (the listing is read, as a chat
 * turn reads it); a call of any tool but the reading ones is recorded and answered
 * `NOT_RUN_TEXT`, so no MCP `tools/call`, mail, calendar event or outbound request happens.
 */
export async function evaluationTools(
  deps: AppDeps,
  run: { owner: RunOwner; definition: FullDefinition; servers: readonly ServerConnectionRow[] },
  calls: { toolName: string; input: unknown }[],
  signal: AbortSignal,
): Promise<ToolSet> {
  const tools: ToolSet = {};
  const listings = new Map<string, Promise<DiscoveredTool[]>>();
  const listed = (serverId: string) => {
    let listing = listings.get(serverId);
    if (!listing) {
      const server = run.servers.find((candidate) => candidate.id === serverId);
      listing = server
        ? listingOf(deps, server).then(
            (found) => found.tools,
            () => [],
          )
        : Promise.resolve([]);
      listings.set(serverId, listing);
    }
    return listing;
  };
  const record = (toolName: string) => async (input: unknown) => {
    calls.push({ toolName, input });
    return NOT_RUN_TEXT;
  };
  for (const entry of run.definition.tools) {
    if (entry.permissionStatus === 'blocked') continue;
    const provider = parseProviderKey(entry.providerKey);
    if (provider === null) continue;
    if (provider.kind === 'mcp') {
      const found = (await listed(provider.serverId)).find((candidate) => candidate.name === entry.toolName);
      if (!found) continue;
      tools[entry.toolName] = tool({
        description: found.description ?? found.title ?? entry.toolName,
        inputSchema: jsonSchema(found.inputSchema as JSONSchema7),
        execute: record(entry.toolName),
      });
      continue;
    }
    const builtin = findBuiltinTool(entry.toolName);
    if (!builtin || builtin.providerKey !== entry.providerKey || !builtin.availability(deps.config).available) continue;
    const reads = READING_TOOLS.has(entry.toolName) ? builtin.execute(deps.config) : undefined;
    // The question's embedding, if any, is a usage row of the run like its other model calls.
    const scope = {
      organizationId: run.owner.organizationId,
      agentId: run.owner.agentId,
      userId: run.owner.userId ?? '',
      usageMetadata: EVALUATION_METADATA,
    };
    tools[entry.toolName] = tool({
      description: builtin.description,
      inputSchema: builtinInputSchema(builtin),
      execute: reads
        ? async (input: Record<string, unknown>) => {
            calls.push({ toolName: entry.toolName, input });
            return boundedResult(await asToolFailure(() => reads({ deps, scope, input, signal })));
          }
        : record(entry.toolName),
    });
  }
  return tools;
}

/**
 * Answers one case with the definition (docs/evaluations.md): the blocked terms of its guardrails
 * first (a tripped message is answered with the refusal, no model called), then the model over
 * the case's messages with the run's tools. Every model call is a usage row
 * (`user_interaction`, `{ evaluation: true }`), reserved against the budget as it is made.
 */
export async function answerCase(
  deps: AppDeps,
  run: {
    owner: RunOwner;
    definition: FullDefinition;
    tools: (calls: { toolName: string; input: unknown }[]) => Promise<ToolSet>;
    /** The run's pending writes (usage rows), awaited before it ends. */
    writes: Promise<void>[];
  },
  testCase: RunCase,
  storedKey: ProviderKeyRow | null,
  signal: AbortSignal,
): Promise<CaseAnswer> {
  const { definition } = run;
  const last = testCase.messages.at(-1)!;
  const lastText = last.parts.map((part) => part.text).join('\n');
  const guarded = {
    id: `evaluation:${JSON.stringify(definition.guardrails.blockedTerms)}`,
    updatedAt: '',
    guardrails: definition.guardrails,
  };
  if (hasBlockedTerm(guarded, lastText)) return { answer: definition.guardrails.refusal, toolCalls: [], failure: null, metered: [] };

  const model = modelFor(deps, run.owner.organizationId, definition.modelId ?? deps.config.ai.defaultModel, signal, storedKey);
  const toolCalls: { toolName: string; input: unknown }[] = [];
  let failure: unknown;
  try {
    const answer = await callModel(deps, model, { account: accountOfRun(run.owner), unrecorded: 'log' }, async (ai) => {
      const tools = await run.tools(toolCalls);
      const toolCount = Object.keys(tools).length;
      const system = systemMessageOf(definition, toolCount > 0);
      const messages = await convertToModelMessages(testCase.messages as UIMessage[], { tools });
      const result = ai.streamText({
        system,
        messages,
        ...callSettingsOf(definition),
        prepareStep: fitEveryCall({ maxTokens: deps.config.ai.contextMaxTokens, system, toolCount }),
        tools,
        stopWhen: stepCountIs(deps.config.ai.maxSteps),
        abortSignal: signal,
        onError: ({ error }) => {
          failure ??= error;
        },
      });
      const steps = await result.steps;
      return steps.map((step) => step.text).join('');
    });
    if (failure !== undefined) return { answer, toolCalls, failure: failureText(failure, model, signal), metered: meteredOf(model) };
    return { answer, toolCalls, failure: null, metered: meteredOf(model) };
  } catch (error) {
    return { answer: '', toolCalls, failure: failureText(failure ?? error, model, signal), metered: meteredOf(model) };
  }
}

export const meteredOf = (model: ChatModel): MeteredUsage[] =>
  model.calls.map((call) => ({
    modelId: model.modelId,
    inputTokens: call.inputTokens,
    cacheReadTokens: call.cacheReadTokens,
    outputTokens: call.outputTokens,
  }));

function failureText(error: unknown, model: ChatModel, signal: AbortSignal): string {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason.message : 'The case was stopped.';
  return describeFailure(error, model.failures);
}

/** Whose a run's model calls are: every usage row is `user_interaction` with `{ evaluation: true }` (docs/evaluations.md, "Cost"). */
export const accountOfRun = (owner: RunOwner) => ({
  organizationId: owner.organizationId,
  agentId: owner.agentId,
  userId: owner.userId,
  endUserId: null,
  actionType: 'user_interaction' as const,
  metadata: EVALUATION_METADATA,
});
