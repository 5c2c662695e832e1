import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { Context } from 'koa';
import type { Agent } from '../../sql/agents.ts';
import type { ConversationScope } from '../../sql/chat-conversations.ts';
import { deleteTurn } from '../../sql/chat-turns.ts';
import type { AppDeps } from '../core/deps.ts';
import { serviceUnavailable } from '../core/errors.ts';
import { approvalNotYours } from '../tools/errors.ts';
import { historyBytesFor, readIncoming } from './admission.ts';
import { messageAlreadySent } from './errors.ts';
import { prepareTurn } from './history.ts';
import { chatTurns } from './running-turns.ts';
import type { ChatBody } from './schemas.ts';
import { generateTitle } from './titles.ts';
import { answerTurnStream, claimConversation, firstClaim } from './turn-claim.ts';
import { admitTurnSetup, runTurn, startTurnReads, type TurnSetup } from './turn-setup.ts';

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
  /** Runs once the request is known to start a turn (any trigger), before anything is stored (an end user's daily quota). */
  beforeTurn?: () => Promise<void>;
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
  const messageId = isUserMessage ? last.id : null;
  const claim = firstClaim(deps, body.id, messageId);
  const reads = startTurnReads(deps, scope, agent, {
    history: isUserMessage ? { clientId: body.id, maxBytes: historyBytesFor(deps.config), messageId: last.id } : null,
    claim,
  });
  const [historyRead, claimRead] = await Promise.allSettled([
    reads.history,
    claimConversation(deps, scope, body.id, messageId, { claim, claimed: reads.claimed }),
    reads.key,
  ]);
  // A turn claimed for a request that fails its checks never ran: its claim goes.
  const turn = claimRead.status === 'fulfilled' && claimRead.value.kind === 'new' ? turns.begin(claimRead.value.turnId) : undefined;
  let setup: TurnSetup | undefined;
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
    setup = await admitTurnSetup(deps, reads, {
      scope,
      agent,
      signal: turn!.signal,
      storedMessages: isUserMessage ? (history?.messageCount ?? 0) : null,
    });
    await call.beforeTurn?.();
    const prepared = await prepareTurn(deps, scope, body.id, incoming, history);
    const { storedKey } = setup;
    // What the request brought is stored; the agent's model sees the message the turn answers only if no guardrail trips (docs/chat.md, step 4).
    const events = await runTurn(deps, turn!, setup, {
      scope,
      agent,
      prepared,
      isNew: incoming.kind === 'user',
      approvals: call.approvals,
      // A new conversation is titled beside its first turn, never waited for.
      ...(incoming.kind === 'user' && history === null
        ? { title: () => generateTitle(deps, { owner: scope, agent, storedKey }, prepared.conversationId, incoming.text) }
        : {}),
    });
    ctx.set(UI_MESSAGE_STREAM_HEADERS);
    return Readable.from(events);
  } catch (error) {
    // No stream started: the turn's claim goes and its outbound connections (BYOK) end here. A
    // failed read may have failed after its statement wrote the claim (a row check): its id is this
    // request's own, so it goes too.
    await turn?.abandon().catch(() => {});
    if (claimRead.status === 'rejected') await deleteTurn(deps.db, claim.id).catch(() => {});
    await setup?.model.close();
    throw error;
  }
}
