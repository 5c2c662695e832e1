import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ownerIs, ownerValues, type ConversationScope } from './chat-conversations.ts';
import { IdRow } from './rows.ts';

export type TurnOutcome = 'finished' | 'stopped' | 'timed_out' | 'shutdown' | 'lost' | 'failed';

const KnownTurn = z.strictObject({
  id: z.string(),
  clientMessageId: z.string().nullable(),
  running: z.boolean(),
  /** Running, but its lease ran out: its instance died. */
  lost: z.boolean(),
});
export type KnownTurn = z.infer<typeof KnownTurn>;

/**
 * A FROM item that turns off `synchronous_commit` for the statement's own transaction (a
 * statement outside a transaction is one): its COMMIT does not wait for the WAL flush. A turn's
 * claim and end are written on the way to the model call and to `[DONE]`; the flush cost ~7 ms
 * p50 on a loaded machine (bench/chat). Uniqueness is decided at once all the same; a crash may
 * lose the last few claims or ends, which the lease (30 s) covers.
 */
const asyncCommit = sql.fragment`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

const scopeIs = (scope: ConversationScope, clientConversationId: string) => sql.fragment`
  organization_id = ${scope.organizationId} AND agent_id = ${scope.agentId} AND ${ownerIs(scope)}
  AND client_conversation_id = ${clientConversationId}`;

/**
 * Claims the conversation for a new turn: true when this row was written, false when the
 * conversation already has a running turn or this message id already started one (the unique
 * indexes of migration 1020 decide, so concurrent claims on any instance let exactly one in).
 */
export async function claimTurn(db: CommonQueryMethods, scope: ConversationScope, turn: TurnClaim): Promise<boolean> {
  const claimed = await db.maybeOne(sql.type(IdRow)`${claimTurnWrite(scope, turn)}`);
  return claimed !== null;
}

export type TurnClaim = { id: string; clientConversationId: string; clientMessageId: string | null; now: Date; leaseMs: number };

/** `claimTurn`'s `INSERT ... RETURNING id`, also a data-modifying CTE of the turn's reads (sql/chat-turn-reads.ts). */
export const claimTurnWrite = (scope: ConversationScope, turn: TurnClaim) => sql.fragment`
    INSERT INTO chat_turns (id, organization_id, agent_id, user_id, end_user_id, client_conversation_id, client_message_id, started_at, lease_until)
    SELECT ${turn.id}, ${scope.organizationId}, ${scope.agentId}, ${ownerValues(scope)}, ${turn.clientConversationId},
           ${turn.clientMessageId}, ${turn.now.toISOString()}, now() + ${turn.leaseMs} * interval '1 millisecond'
    FROM ${asyncCommit}
    ON CONFLICT DO NOTHING
    RETURNING id`;

/**
 * What stood in a claim's way: the running turn of the conversation, else the ended turn that
 * this message id started (null: neither, the way is free now).
 */
export function findBlockingTurn(
  db: CommonQueryMethods,
  scope: ConversationScope,
  clientConversationId: string,
  clientMessageId: string | null,
) {
  return db.maybeOne(sql.type(KnownTurn)`
    SELECT id, client_message_id AS "clientMessageId", ended_at IS NULL AS running,
           ended_at IS NULL AND lease_until <= now() AS lost
    FROM chat_turns
    WHERE ${scopeIs(scope, clientConversationId)}
      AND (ended_at IS NULL OR (${clientMessageId}::text IS NOT NULL AND client_message_id = ${clientMessageId}))
    ORDER BY ended_at IS NULL DESC
    LIMIT 1`);
}

/** The running turn of the caller's conversation whose lease holds, or null. */
export function findRunningTurn(db: CommonQueryMethods, scope: ConversationScope, clientConversationId: string) {
  return db.maybeOne(sql.type(KnownTurn)`
    SELECT id, client_message_id AS "clientMessageId", true AS running, false AS lost
    FROM chat_turns
    WHERE ${scopeIs(scope, clientConversationId)} AND ended_at IS NULL AND lease_until > now()`);
}

const RunningRow = z.strictObject({ running: z.boolean() });

/** Whether the turn has ended, lost its lease (its instance died) or is gone with its conversation. */
export async function turnHasEnded(db: CommonQueryMethods, turnId: string): Promise<boolean> {
  const running = await db.maybeOneFirst(sql.type(RunningRow)`
    SELECT ended_at IS NULL AND lease_until > now() AS running FROM chat_turns WHERE id = ${turnId}`);
  return running !== true;
}

/** Removes the claim of a turn that never started (a check after the claim failed). */
export async function deleteTurn(db: CommonQueryMethods, turnId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM chat_turns WHERE id = ${turnId}`);
}

/** Ends a running turn; a turn already ended keeps its first outcome. */
export async function endTurn(db: CommonQueryMethods, turnId: string, outcome: TurnOutcome, now: Date): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE chat_turns SET ended_at = ${now.toISOString()}, outcome = ${outcome}
    FROM ${asyncCommit}
    WHERE id = ${turnId} AND ended_at IS NULL`);
}

/**
 * `endTurn` as a data-modifying CTE, for the statement that saves the turn's answer with its usage
 * rows (`insertUsageEvents`' `alongside`): the turn ends when its answer commits, in one round trip.
 */
export const turnEndWrite = (turnId: string, outcome: TurnOutcome, now: Date) => sql.fragment`
  ended_turn AS (UPDATE chat_turns SET ended_at = ${now.toISOString()}, outcome = ${outcome} WHERE id = ${turnId} AND ended_at IS NULL)`;

/** Ends the conversation's running turn whose lease ran out (its instance died): the conversation is free again. */
export async function endLostTurn(db: CommonQueryMethods, scope: ConversationScope, clientConversationId: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE chat_turns SET ended_at = now(), outcome = 'lost'
    WHERE ${scopeIs(scope, clientConversationId)} AND ended_at IS NULL AND lease_until <= now()`);
}

/** Renews the leases of the turns this instance runs. */
export async function renewLeases(db: CommonQueryMethods, turnIds: readonly string[], leaseMs: number): Promise<void> {
  if (turnIds.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE chat_turns SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE id = ANY(${sql.array(turnIds, 'uuid')}) AND ended_at IS NULL`);
}

/** Forgets the turns of a deleted conversation, so its client id starts afresh. */
export async function deleteTurns(db: CommonQueryMethods, scope: ConversationScope, clientConversationId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM chat_turns WHERE ${scopeIs(scope, clientConversationId)}`);
}
