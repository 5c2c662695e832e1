import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { uuidv7 } from 'uuidv7';
import type { ConversationScope } from '../../sql/chat-conversations.ts';
import { claimTurn, endLostTurn, findBlockingTurn, type TurnClaim } from '../../sql/chat-turns.ts';
import type { AppDeps } from '../core/deps.ts';
import { messageAlreadySent, streamUnavailable, turnInProgress } from './errors.ts';
import { TURN_LEASE_MS, type ChatTurns } from './running-turns.ts';

/** `new`: this request runs the turn `turnId`; `join`: the same message's turn already runs, answer its stream. */
export type Claim = { kind: 'new'; turnId: string } | { kind: 'join'; turnId: string };

/**
 * One turn per conversation, decided by PostgreSQL's unique indexes (sql/chat-turns.ts), so it
 * holds across instances: the conversation is claimed for a new turn, or the request learns what
 * stands in the way:
 * - a running turn started by this same user message id (a retried POST): `join`;
 * - another running turn: 409 `AI.TURN_IN_PROGRESS`;
 * - an ended turn of this message id: 409 `AI.MESSAGE_ALREADY_SENT`;
 * - a running turn whose instance died (lease out): it is ended as lost, and the claim retried.
 * `first`: the first claim, written elsewhere (with the turn's reads: `firstClaim`), and its answer.
 */
export async function claimConversation(
  deps: AppDeps,
  scope: ConversationScope,
  clientConversationId: string,
  clientMessageId: string | null,
  first?: { claim: TurnClaim; claimed: Promise<boolean | null> },
): Promise<Claim> {
  const turnId = first?.claim.id ?? uuidv7();
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed =
      attempt === 0 && first
        ? await first.claimed
        : await claimTurn(deps.db, scope, { id: turnId, clientConversationId, clientMessageId, now: deps.clock(), leaseMs: TURN_LEASE_MS });
    if (claimed) return { kind: 'new', turnId };
    const blocking = await findBlockingTurn(deps.db, scope, clientConversationId, clientMessageId);
    if (!blocking) continue;
    if (blocking.lost) {
      await endLostTurn(deps.db, scope, clientConversationId);
      continue;
    }
    if (!blocking.running) throw messageAlreadySent();
    if (clientMessageId !== null && blocking.clientMessageId === clientMessageId) return { kind: 'join', turnId: blocking.id };
    throw turnInProgress();
  }
  throw turnInProgress();
}

/** A turn's first claim, to write with its reads (`startTurnReads`, then `claimConversation`'s `first`). */
export const firstClaim = (deps: Pick<AppDeps, 'clock'>, clientConversationId: string, clientMessageId: string | null): TurnClaim => ({
  id: uuidv7(),
  clientConversationId,
  clientMessageId,
  now: deps.clock(),
  leaseMs: TURN_LEASE_MS,
});

/**
 * Answers a running turn's stream (the resume GET, a retried POST): 200 with its UI message
 * stream from the first chunk, or `onEnded()` when it has ended. A resumable layer that cannot be
 * reached (Redis away) is 503 `AI.STREAM_UNAVAILABLE` with `Retry-After`: the turn goes on and is saved.
 */
export async function answerTurnStream(ctx: Context, turns: ChatTurns, turnId: string, onEnded: () => null): Promise<Readable | null> {
  let events: AsyncGenerator<string> | null;
  try {
    events = await turns.resume(turnId);
  } catch (error) {
    ctx.set('Retry-After', '1');
    throw Object.assign(streamUnavailable(), { cause: error });
  }
  if (!events) return onEnded();
  ctx.set(UI_MESSAGE_STREAM_HEADERS);
  return Readable.from(events);
}
