import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { LockedRow } from './rows.ts';

/** Who sent a key to which route: keys of different principals or routes never meet. */
export type IdempotencyScope = { principal: string; endpoint: string; key: string };

const AnswerRow = z.strictObject({ fingerprint: z.instanceof(Buffer), status: z.number().int(), body: z.unknown() });

/**
 * Takes the transaction-scoped advisory lock of a key without waiting: false while another
 * transaction (the same request still in flight) holds it. Released at COMMIT or ROLLBACK.
 */
export function tryLockIdempotencyKey(db: CommonQueryMethods, lockKey: bigint) {
  return db.oneFirst(sql.type(LockedRow)`SELECT pg_try_advisory_xact_lock(${lockKey.toString()}::bigint) AS locked`);
}

/** The stored answer of a key used within `ttlHours`, if any; an older one is deleted so the key can be used again. */
export async function findIdempotentAnswer(db: CommonQueryMethods, scope: IdempotencyScope, ttlHours: number) {
  await db.query(sql.unsafe`
    DELETE FROM idempotency_keys
    WHERE principal = ${scope.principal} AND endpoint = ${scope.endpoint} AND key = ${scope.key}
      AND created_at <= now() - make_interval(hours => ${ttlHours})`);
  return db.maybeOne(sql.type(AnswerRow)`
    SELECT fingerprint, status, body FROM idempotency_keys
    WHERE principal = ${scope.principal} AND endpoint = ${scope.endpoint} AND key = ${scope.key}`);
}

/** Records the answer of a creation; run it in the creation's own transaction. */
export async function recordIdempotentAnswer(
  db: CommonQueryMethods,
  scope: IdempotencyScope,
  answer: { fingerprint: Buffer; status: number; body: unknown },
) {
  await db.query(sql.unsafe`
    INSERT INTO idempotency_keys (principal, endpoint, key, fingerprint, status, body)
    VALUES (${scope.principal}, ${scope.endpoint}, ${scope.key}, ${sql.binary(answer.fingerprint)}, ${answer.status},
            ${answer.body === undefined ? null : sql.json(answer.body as never)})`);
}
