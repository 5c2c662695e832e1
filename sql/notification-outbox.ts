import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { Sealed } from './sealed.ts';

export function insertOutboxMessage(
  db: CommonQueryMethods,
  message: { id: string; channel: 'email' | 'sms'; recipient: string; template: string; sealedBody: Sealed },
) {
  return db.query(sql.unsafe`
    INSERT INTO notification_outbox (id, channel, recipient, template, sealed_body, sealed_body_key_id)
    VALUES (${message.id}, ${message.channel}, ${message.recipient}, ${message.template},
            ${sql.binary(message.sealedBody.ciphertext)}, ${message.sealedBody.keyId})`);
}

const OutboxMessage = z
  .strictObject({
    id: z.string(),
    channel: z.enum(['email', 'sms']),
    recipient: z.string(),
    template: z.string(),
    keyId: z.string(),
    ciphertext: z.instanceof(Buffer),
    createdAt: z.string(),
  })
  .transform(({ keyId, ciphertext, ...message }) => ({ ...message, sealedBody: { keyId, ciphertext } }));

/** The messages for a recipient, newest first (for a delivery worker and for tests). */
export function listOutboxMessagesTo(db: CommonQueryMethods, recipient: string) {
  return db.any(sql.type(OutboxMessage)`
    SELECT id, channel, recipient, template, sealed_body_key_id AS "keyId", sealed_body AS ciphertext,
           created_at AS "createdAt"
    FROM notification_outbox WHERE recipient = ${recipient} ORDER BY created_at DESC, id DESC`);
}

const ClaimedMessage = z
  .strictObject({
    id: z.string(),
    channel: z.enum(['email', 'sms']),
    recipient: z.string(),
    template: z.string(),
    attempts: z.number(),
    keyId: z.string(),
    ciphertext: z.instanceof(Buffer),
  })
  .transform(({ keyId, ciphertext, ...message }) => ({ ...message, sealedBody: { keyId, ciphertext } }));
export type ClaimedMessage = z.infer<typeof ClaimedMessage>;

/**
 * Claims up to `limit` pending messages of `channels` due at `now`: counts the attempt and pushes
 * `next_attempt_at` to `leaseUntil`, in one statement. `FOR UPDATE SKIP LOCKED` lets several
 * workers claim at once without waiting on, or taking, each other's rows; the lease keeps a
 * claimed message from being claimed again until it ends (then it is, if nobody marked it).
 */
export function claimDueMessages(
  db: CommonQueryMethods,
  claim: { now: Date; leaseUntil: Date; limit: number; channels: readonly ('email' | 'sms')[] },
) {
  return db.any(sql.type(ClaimedMessage)`
    UPDATE notification_outbox AS o
    SET attempts = o.attempts + 1, next_attempt_at = ${sql.timestamp(claim.leaseUntil)}
    FROM (
      SELECT id FROM notification_outbox
      WHERE status = 'pending' AND next_attempt_at <= ${sql.timestamp(claim.now)}
        AND channel = ANY(${sql.array([...claim.channels], 'text')})
      ORDER BY next_attempt_at, id
      LIMIT ${claim.limit}
      FOR UPDATE SKIP LOCKED
    ) AS due
    WHERE o.id = due.id
    RETURNING o.id, o.channel, o.recipient, o.template, o.attempts,
              o.sealed_body_key_id AS "keyId", o.sealed_body AS ciphertext`);
}

export function markMessageSent(db: CommonQueryMethods, id: string, now: Date) {
  return db.query(sql.unsafe`
    UPDATE notification_outbox SET status = 'sent', sent_at = ${sql.timestamp(now)}, last_error = NULL
    WHERE id = ${id} AND status = 'pending'`);
}

export function scheduleMessageRetry(db: CommonQueryMethods, id: string, nextAttemptAt: Date, error: string) {
  return db.query(sql.unsafe`
    UPDATE notification_outbox SET next_attempt_at = ${sql.timestamp(nextAttemptAt)}, last_error = ${error}
    WHERE id = ${id} AND status = 'pending'`);
}

/** A queued job that ran (ADR 0114): its row goes, in the job's transaction. */
export function deleteOutboxMessage(db: CommonQueryMethods, id: string) {
  return db.query(sql.unsafe`DELETE FROM notification_outbox WHERE id = ${id}`);
}

/** The dead-letter state: kept for an operator, never claimed again. */
export function markMessageDead(db: CommonQueryMethods, id: string, now: Date, error: string) {
  return db.query(sql.unsafe`
    UPDATE notification_outbox SET status = 'dead', dead_at = ${sql.timestamp(now)}, last_error = ${error}
    WHERE id = ${id} AND status = 'pending'`);
}

const DeliveryState = z.strictObject({
  id: z.string(),
  status: z.enum(['pending', 'sent', 'dead']),
  attempts: z.number(),
  nextAttemptAt: z.string(),
  lastError: z.string().nullable(),
});

/** Where a message stands (for operators and tests). */
export function findDeliveryState(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(DeliveryState)`
    SELECT id, status, attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError"
    FROM notification_outbox WHERE id = ${id}`);
}
