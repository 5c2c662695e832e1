import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { Context } from 'koa';
import type { Agent } from '../../sql/agents.ts';
import { listAgentServerConnections, type ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import { findConversationHistory, isEndUserScope, type ConversationScope } from '../../sql/chat-conversations.ts';
import { findProviderKey } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { serviceUnavailable } from '../core/errors.ts';
import { approvalNotYours } from '../tools/errors.ts';
import { offeredToolsOf, type OfferedTool } from '../tools/resolution.ts';
import { admitTurn, historyBytesFor, readIncoming, startPriceCheck } from './admission.ts';
import { messageAlreadySent } from './errors.ts';
import { checkGuardrails, refusalStream } from './guardrails.ts';
import { prepareTurn, type PreparedTurn } from './history.ts';
import { chatModelWith, type ChatModel } from './provider.ts';
import { chatTurns } from './running-turns.ts';
import type { ChatBody } from './schemas.ts';
import { generateTitle } from './titles.ts';
import { buildToolSet, callMcpTool, type ToolRunners } from './tool-map.ts';
import { answerTurnStream, claimConversation } from './turn-claim.ts';
import { streamTurn } from './turn.ts';

/** Who runs MCP tools: the MCP `tools/call` (built-in tools run their own executor, app/tools/builtins.ts). */
export const chatRunners: ToolRunners = { mcp: callMcpTool };

/** One chat request, from a staff user (the console, the API) or an end user (the web channel). */
export type ChatCall = {
  deps: AppDeps;
  ctx: Context;
  /** Whose conversation: the organization, the agent and the staff user or end user. */
  scope: ConversationScope;
  agent: Agent;
  body: Static<typeof ChatBody>;
  /**
   * Who answers this conversation's tool approvals: its owner in the stream (`owner`), or only
   * the organization's staff (`staff`: an answer from the owner is 403 `AI.APPROVAL_NOT_YOURS`
   * and leaves the approval pending).
   */
  approvals: 'owner' | 'staff';
  /** Runs once a new user message is known to start a turn, before anything is stored (an end user's daily quota). */
  beforeNewMessage?: () => Promise<void>;
};

/** The value of a settled read, or its failure thrown. */
function settled<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}

/**
 * One chat turn, the same for every caller (docs/chat.md): read the request, claim the
 * conversation, admit the turn, store what the request brings, check the guardrails, stream.
 * Answers the UI message stream, or a running turn's (a retried POST). Staff approve-always
 * overrides apply to staff users only.
 */
export async function answerChat(call: ChatCall): Promise<Readable | null> {
  const { deps, ctx, scope, agent, body } = call;
  const turns = chatTurns(deps);
  // Shutting down: the client retries on another instance (docs/chat.md, "Shutdown").
  if (turns.draining) {
    ctx.set('Retry-After', '1');
    throw serviceUnavailable('shutting down');
  }
  // The reads that do not depend on each other run at once (docs/chat.md, "Decisions"); their
  // failures are still answered in the order of the checks: body, turn claim, provider, history.
  // A new user message (the common turn) also reads the conversation's history now.
  const last = body.messages.at(-1);
  const isUserMessage = body.trigger !== 'regenerate-message' && last?.role === 'user';
  const keyFound = findProviderKey(deps.db, scope.organizationId);
  const priced = startPriceCheck(deps, agent, keyFound);
  const [keyRead, toolsRead, serversRead, historyRead, claimRead] = await Promise.allSettled([
    keyFound,
    offeredToolsOf(deps.db, agent.id, isEndUserScope(scope) ? null : scope.userId),
    listAgentServerConnections(deps.db, { organizationId: scope.organizationId, agentId: agent.id }),
    isUserMessage ? findConversationHistory(deps.db, scope, body.id, { maxBytes: historyBytesFor(deps.config), messageId: last.id }) : null,
    claimConversation(deps, scope, body.id, isUserMessage ? last.id : null),
  ]);
  // A turn claimed for a request that fails its checks never ran: its claim goes.
  const turn = claimRead.status === 'fulfilled' && claimRead.value.kind === 'new' ? turns.begin(claimRead.value.turnId) : undefined;
  let model: ChatModel | undefined;
  try {
    const incoming = readIncoming(body);
    if (incoming.kind === 'answers' && call.approvals === 'staff') throw approvalNotYours();
    const claim = settled(claimRead);
    // A retried POST of a message whose turn runs is answered like the resume GET.
    if (claim.kind === 'join')
      return await answerTurnStream(ctx, turns, claim.turnId, () => {
        throw messageAlreadySent();
      });
    const history = settled(historyRead);
    // The history holds only the newest messages: whether it has this id is asked of the whole conversation.
    if (isUserMessage && history?.hasMessage === true) throw messageAlreadySent();
    const signal = turn!.signal;
    const storedKey = settled(keyRead);
    model = chatModelWith(deps, scope.organizationId, agent.modelId ?? deps.config.ai.defaultModel, signal, storedKey);
    const offered = settled(toolsRead);
    await admitTurn(deps, {
      organizationId: scope.organizationId,
      model,
      storedMessages: isUserMessage ? (history?.messageCount ?? 0) : null,
      priced,
    });
    if (incoming.kind === 'user') await call.beforeNewMessage?.();
    const prepared = await prepareTurn(deps, scope, body.id, incoming, history);
    let title: Promise<string | null> | undefined;
    if (incoming.kind === 'user') {
      // The message is stored; the agent's model sees it only if no guardrail trips (docs/chat.md, step 4).
      const verdict = await checkGuardrails(deps, agent, incoming.text, { owner: scope, storedKey, signal });
      if (verdict.tripped) {
        await model.close();
        ctx.set(UI_MESSAGE_STREAM_HEADERS);
        return Readable.from(turn!.run(refusalStream(deps, { agent, conversationId: prepared.conversationId, verdict })));
      }
      // A new conversation is titled beside its first turn, never waited for.
      if (history === null) title = generateTitle(deps, { owner: scope, agent, storedKey }, prepared.conversationId, incoming.text);
    }
    const stream = await turnStream(deps, {
      scope,
      agent,
      model,
      signal,
      prepared,
      offered,
      servers: settled(serversRead),
      approvals: call.approvals,
      ...(title ? { title } : {}),
    });
    ctx.set(UI_MESSAGE_STREAM_HEADERS);
    return Readable.from(turn!.run(stream));
  } catch (error) {
    // No stream started: the turn's claim goes and its outbound connections (BYOK) end here.
    await turn?.abandon().catch(() => {});
    await model?.close();
    throw error;
  }
}

/**
 * The stream of a turn whose request is applied (`prepared`): the tool map of the offered tools,
 * then the model's answer (app/chat/turn.ts). What a chat request and a staff answer's
 * continuation (app/chat/staff/continuation.ts) share.
 */
export async function turnStream(
  deps: AppDeps,
  turn: {
    scope: ConversationScope;
    agent: Agent;
    model: ChatModel;
    signal: AbortSignal;
    prepared: PreparedTurn;
    offered: ReadonlyMap<string, OfferedTool>;
    servers: readonly ServerConnectionRow[];
    approvals: 'owner' | 'staff';
    title?: Promise<string | null>;
  },
) {
  const { scope, signal, prepared } = turn;
  const owner = { owner: scope, signal, approvedCallIds: prepared.approvedCallIds, servers: turn.servers };
  const tools = await buildToolSet(deps, owner, turn.offered, chatRunners);
  return streamTurn({
    deps,
    scope,
    agent: turn.agent,
    conversationId: prepared.conversationId,
    history: prepared.history,
    model: turn.model,
    tools,
    // Stop, the turn's deadline and shutdown end it; the client going away does not (a disconnect is not a stop).
    signal,
    approvals: turn.approvals,
    ...(turn.title ? { title: turn.title } : {}),
  });
}
