import { InvalidToolInputError, jsonSchema, NoSuchToolError, tool, type ToolSet } from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConversationScope } from '../../sql/chat-conversations.ts';
import type { AppDeps } from '../core/deps.ts';
import type { ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import { callServerTool } from '../mcp-client/call-tool.ts';
import { listingOf, type DiscoveredTool } from '../mcp-client/tool-discovery.ts';
import { findBuiltinTool } from '../tools/builtins.ts';
import type { OfferedTool } from '../tools/resolution.ts';
import { builtinInputSchema, type ToolInput } from '../tools/tool-input.ts';
import { cutText } from './context-window.ts';

/*
 * The tools of one turn: the map the model is offered (`buildToolSet`), how an MCP tool of it is
 * called (`callMcpTool`), how much of a result the model is given (`boundedResult`) and how a
 * failed call reads (`ToolFailure`, `toolFailureText`).
 */

/** A tool call that failed; its message is the tool part's `errorText` (the model sees it too). */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
}

/** Most characters of a failed call's text (its part's `errorText`). */
const MAX_FAILURE_CHARS = 2000;

/** Runs a tool, turning whatever it throws into a ToolFailure with a bounded message. */
export async function asToolFailure<R>(run: () => Promise<R>): Promise<R> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ToolFailure(cutText(message, MAX_FAILURE_CHARS));
  }
}

/**
 * The text of a tool call that failed, or undefined when `error` is no such failure: a tool's
 * ToolFailure, or the SDK's refusal of a call (an input its schema does not allow, a tool that is
 * not offered, arguments that are not JSON). The SDK hands the refusal to the tool's
 * `tool-output-error` as its message, a string; nothing else of a turn fails with a string.
 */
export function toolFailureText(error: unknown): string | undefined {
  if (error instanceof ToolFailure) return error.message;
  if (InvalidToolInputError.isInstance(error) || NoSuchToolError.isInstance(error)) return cutText(error.message, MAX_FAILURE_CHARS);
  if (typeof error === 'string') return cutText(error, MAX_FAILURE_CHARS);
  return undefined;
}

/** Who runs the MCP tools (`tools/call`); built-in tools run their own executor (app/tools/builtins.ts). */
export type ToolRunners = { mcp: McpToolExecutor };
/**
 * `approvedCallIds`: calls approved in this request, which run whatever the tool's level is now.
 * `servers`: the agent's MCP servers (`listAgentServerConnections`, read with the turn's other reads).
 */
type Scope = {
  /** Whose turn: the organization, the agent and the staff user or end user. */
  owner: ConversationScope;
  signal: AbortSignal;
  approvedCallIds: ReadonlySet<string>;
  servers: readonly ServerConnectionRow[];
};

/**
 * The tool map of one turn: exactly the offered tools (the agent's non-blocked ones, see
 * offeredToolsOf), keyed by tool name. MCP tools carry the input schema their server lists
 * now (through the discovery cache); a tool the server no longer lists, or a server that cannot
 * be listed within the MCP client's timeout, is left out. A built-in tool this deployment does
 * not run (its `availability`, app/tools/builtins.ts) is left out too: it stays in the agent's
 * set, and the catalog says why it is unavailable. `needsApproval` mirrors
 * `requiresApproval` (needs_approval without this user's override), and holds for a call the
 * user approved in this request.
 */
export async function buildToolSet(
  deps: AppDeps,
  scope: Scope,
  offered: ReadonlyMap<string, OfferedTool>,
  runners: ToolRunners,
): Promise<ToolSet> {
  const listed = await listServers(deps, scope, offered);
  const tools: ToolSet = {};
  for (const entry of offered.values()) {
    const needsApproval = (_input: unknown, { toolCallId }: { toolCallId: string }) =>
      entry.requiresApproval || scope.approvedCallIds.has(toolCallId);
    const { provider } = entry;
    // An `mcp:` key without a UUID names no server, so it offers nothing.
    if (provider === null) continue;
    if (provider.kind === 'mcp') {
      const { serverId } = provider;
      const found = listed.get(serverId)?.find((candidate) => candidate.name === entry.toolName);
      if (!found) continue;
      tools[entry.toolName] = tool({
        description: found.description ?? found.title ?? entry.toolName,
        // Offered as listed and not checked here: the input goes to the server, which checks it, and
        // compiling a hostile server's schema is the cost docs/agents-and-tools.md (Decisions) declines.
        inputSchema: jsonSchema(found.inputSchema as JSONSchema7),
        needsApproval,
        execute: (input: unknown, { abortSignal }) =>
          asToolFailure(() =>
            runners.mcp(deps, {
              organizationId: scope.owner.organizationId,
              serverId,
              toolName: entry.toolName,
              input,
              signal: abortSignal ?? scope.signal,
            }),
          ),
      });
      continue;
    }
    const builtin = findBuiltinTool(entry.toolName);
    const run = builtin?.availability(deps.config).available ? builtin.execute(deps.config) : undefined;
    if (!builtin || !run) continue;
    tools[entry.toolName] = tool({
      // The catalog's description, read once with the offered set (absent only for a tool stored under another provider).
      description: entry.description ?? builtin.description,
      // Checked against the schema before anything runs: an input it refuses never reaches the executor (app/tools/tool-input.ts).
      inputSchema: builtinInputSchema(builtin),
      needsApproval,
      execute: async (input: ToolInput, { abortSignal }) =>
        boundedResult(await asToolFailure(() => run({ deps, scope: scope.owner, input, signal: abortSignal ?? scope.signal }))),
    });
  }
  return tools;
}

/**
 * The tools each MCP server of the offered set lists, in parallel (from the tools cache when it
 * holds them: no query). A server that fails is logged and offers nothing, and so does one that is no
 * longer the agent's.
 */
async function listServers(deps: AppDeps, scope: Scope, offered: ReadonlyMap<string, OfferedTool>): Promise<Map<string, DiscoveredTool[]>> {
  const serverIds = new Set([...offered.values()].flatMap(({ provider }) => (provider?.kind === 'mcp' ? [provider.serverId] : [])));
  const listed = await Promise.all(
    [...serverIds].map(async (serverId) => {
      const server = scope.servers.find((candidate) => candidate.id === serverId);
      if (!server) return [serverId, []] as [string, DiscoveredTool[]];
      try {
        return [serverId, (await listingOf(deps, server)).tools] as [string, DiscoveredTool[]];
      } catch (error) {
        deps.logger.info({ serverId, err: error instanceof Error ? error.message : String(error) }, 'chat: MCP server tools unavailable');
        return [serverId, []] as [string, DiscoveredTool[]];
      }
    }),
  );
  return new Map(listed);
}

/** One `tools/call` the chat stream asks for. */
export type McpToolCall = { organizationId: string; serverId: string; toolName: string; input: unknown; signal: AbortSignal };

/**
 * Runs one tool on an agent's MCP server and returns what the model is given; throws an Error
 * whose message becomes the tool part's `output-error`. The chat stream depends only on this
 * signature.
 */
export type McpToolExecutor = (deps: AppDeps, call: McpToolCall) => Promise<unknown>;

/** Most characters of one tool result, built-in or MCP, handed to the model and stored; the rest is cut and said so. */
export const MAX_TOOL_RESULT_CHARS = 64 * 1024;

/**
 * A tool's result as the model gets it and the conversation stores it: unchanged while its text
 * (its JSON, for a result that is not text) has at most `MAX_TOOL_RESULT_CHARS` characters,
 * otherwise that text cut there, saying so.
 */
export function boundedResult(result: unknown): unknown {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  if (text === undefined || text.length <= MAX_TOOL_RESULT_CHARS) return result;
  return `${cutText(text, MAX_TOOL_RESULT_CHARS)} [result cut at ${MAX_TOOL_RESULT_CHARS} characters]`;
}

/**
 * `tools/call` through the project's bounded MCP client (app/mcp-client/call-tool.ts): the
 * server's stored auth (an OAuth token refreshed once after a 401), the outbound deadline that
 * the turn's abort signal also ends, the session's byte cap, no schema compiled; then the result
 * cut to `MAX_TOOL_RESULT_CHARS` for the model (`boundedResult`).
 */
export const callMcpTool: McpToolExecutor = async (deps, call) => {
  const outcome = await callServerTool(
    deps,
    { organizationId: call.organizationId, serverId: call.serverId },
    { name: call.toolName, arguments: (call.input ?? {}) as Record<string, unknown> },
    { signal: call.signal },
  );
  if (!outcome.ok) {
    if (outcome.failure === 'not_found') throw new Error('The MCP server of this tool no longer exists');
    if (outcome.failure === 'aborted') throw new Error('The chat was closed before the MCP tool answered');
    throw new Error(`The MCP tool could not be run (${outcome.failure}): ${outcome.message}`);
  }
  const text = resultText(outcome.content, outcome.structuredContent);
  if (outcome.isError) throw new Error(`The MCP tool failed: ${cutText(text, MAX_FAILURE_CHARS)}`);
  return boundedResult(text);
};

/** The result as text: text contents joined, `structuredContent` as JSON when there is no text. */
function resultText(content: CallToolResult['content'], structured: Record<string, unknown> | null): string {
  const items = Array.isArray(content) ? (content as { type: string; text?: unknown }[]) : [];
  const texts = items.flatMap((item) => (item.type === 'text' && typeof item.text === 'string' ? [item.text] : [`[${item.type} content]`]));
  if (texts.length > 0) return texts.join('\n');
  return JSON.stringify(structured);
}
