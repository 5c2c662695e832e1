import type { ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import type { Agent } from '../../sql/agents.ts';
import type { ConversationScope } from '../../sql/chat-conversations.ts';
import { findTurnReads, type TurnReadsRow } from '../../sql/chat-turn-reads.ts';
import type { TurnClaim } from '../../sql/chat-turns.ts';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { modelFor, type ChatModel } from '../metering/models.ts';
import { offeredToolsFrom, type OfferedTool } from '../tools/resolution.ts';
import { admitTurn, startPriceCheck } from './admission.ts';
import type { PreparedTurn } from './history.ts';
import { judgeTurn, refusalOf } from './judge.ts';
import type { TurnHandle } from './running-turns.ts';
import { buildToolSet, callMcpTool, type ToolRunners } from './tool-map.ts';
import { streamTurn } from './turn.ts';

/*
 * The setup every turn goes through, a chat request's (`answerChat`, app/chat/chat-turn.ts) and a
 * staff answer's continuation (app/chat/staff/continuation.ts) alike: its reads begun at once
 * (`startTurnReads`), its model made and admitted (`admitTurnSetup`), then, once the request is
 * applied, its guardrails and its stream (`runTurn`).
 */

/** Who runs MCP tools: the MCP `tools/call` (built-in tools run their own executor, app/tools/builtins.ts). */
export const chatRunners: ToolRunners = { mcp: callMcpTool };

/**
 * The reads of a turn, begun and not awaited: the provider key, the offered tools, the MCP servers,
 * the conversation's history and the turn's claim (one statement, sql/chat-turn-reads.ts), and the
 * price check.
 */
export type TurnReads = {
  key: Promise<ProviderKeyRow | null>;
  offered: Promise<ReadonlyMap<string, OfferedTool>>;
  servers: Promise<readonly ServerConnectionRow[]>;
  /** The conversation as `findConversationHistory` reads it; null when absent or not asked for. */
  history: Promise<TurnReadsRow['history']>;
  /** Whether the claim asked for was written (`claimTurn`); null when none was asked for. */
  claimed: Promise<boolean | null>;
  priced: Promise<boolean | null>;
};

/** Quiets a read's failure until someone awaits it (the checks answer failures in their own order). */
const held = <T>(read: Promise<T>) => {
  read.catch(() => {});
  return read;
};

/**
 * Begins a turn's reads (docs/chat.md, "Decisions"): one statement, and the price check beside it.
 * `history`: the conversation to read with them (a new user message's turn); `claim`: the turn's
 * first claim (`claimConversation`), written in the same statement; else none.
 */
export function startTurnReads(
  deps: AppDeps,
  scope: ConversationScope,
  agent: Agent,
  asked: {
    history: { clientId: string; maxBytes: number; messageId?: string | undefined } | null;
    claim: TurnClaim | null;
  } = { history: null, claim: null },
): TurnReads {
  const all = held(findTurnReads(deps.db, { ...scope, agentId: agent.id }, asked));
  const key = held(all.then((row) => row.key));
  return {
    key,
    offered: held(all.then((row) => offeredToolsFrom(row.tools))),
    servers: held(all.then((row) => row.servers)),
    history: held(all.then((row) => row.history)),
    claimed: held(all.then((row) => row.claimed)),
    priced: held(startPriceCheck(deps, agent, key)),
  };
}

/** A turn admitted: its key, its model (to close if the turn goes no further) and its offered tools. */
export type TurnSetup = {
  storedKey: ProviderKeyRow | null;
  model: ChatModel;
  offered: ReadonlyMap<string, OfferedTool>;
  servers: Promise<readonly ServerConnectionRow[]>;
};

/**
 * The turn's model on the organization's key or the platform's (`modelFor`), admitted
 * (`admitTurn`: the price list, the budget, the conversation's room; `storedMessages` null for
 * a turn that adds no message). Failures in the order of the checks: the key, the provider, the
 * tools, admission; the model is closed on any.
 */
export async function admitTurnSetup(
  deps: AppDeps,
  reads: TurnReads,
  turn: { scope: ConversationScope; agent: Agent; signal: AbortSignal; storedMessages: number | null },
): Promise<TurnSetup> {
  const storedKey = await reads.key;
  const model = modelFor(deps, turn.scope.organizationId, turn.agent.modelId ?? deps.config.ai.defaultModel, turn.signal, storedKey);
  try {
    const offered = await reads.offered;
    await admitTurn(deps, { organizationId: turn.scope.organizationId, model, storedMessages: turn.storedMessages, priced: reads.priced });
    return { storedKey, model, offered, servers: reads.servers };
  } catch (error) {
    await model.close();
    throw error;
  }
}

/**
 * Runs an admitted turn whose request is applied (`prepared`) on its handle: the message it
 * answers is judged by the guardrails (a refused one is answered with the refusal, the agent's
 * model never called); else `title` is begun (a new conversation's) and the model answers with
 * the offered tools (app/chat/turn.ts). Answers the turn's server-sent events from the first.
 */
export async function runTurn(
  deps: AppDeps,
  handle: TurnHandle,
  setup: TurnSetup,
  turn: {
    scope: ConversationScope;
    agent: Agent;
    prepared: PreparedTurn;
    isNew: boolean;
    approvals: 'owner' | 'staff';
    title?: () => Promise<string | null>;
  },
): Promise<AsyncGenerator<string>> {
  const { scope, agent, prepared } = turn;
  const { signal } = handle;
  const verdict = await judgeTurn(deps, agent, { prepared, isNew: turn.isNew }, { owner: scope, storedKey: setup.storedKey, signal });
  if (verdict.tripped) {
    await setup.model.close();
    return handle.run(refusalOf(deps, agent, prepared, verdict));
  }
  const title = turn.title?.();
  const servers = await setup.servers;
  const owner = { owner: scope, signal, approvedCallIds: prepared.approvedCallIds, servers };
  const tools = await buildToolSet(deps, owner, setup.offered, chatRunners);
  const stream = await streamTurn({
    deps,
    scope,
    agent,
    conversationId: prepared.conversationId,
    history: prepared.history,
    model: setup.model,
    tools,
    // Stop, the turn's deadline and shutdown end it; the client going away does not (a disconnect is not a stop).
    signal,
    approvals: turn.approvals,
    ending: handle.ending,
    ...(title ? { title } : {}),
  });
  return handle.run(stream);
}
