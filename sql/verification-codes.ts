import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** What a code proves: the mailbox (verification) or the right to set a new password (reset). */
export type Purpose = 'email_verification' | 'password_reset';

/** Stores a new code and supersedes the live ones of the same purpose (only the newest works). */
export async function insertVerificationCode(
  db: CommonQueryMethods,
  code: { id: string; userId: string; purpose: Purpose; hash: Buffer; expiresAt: Date; maxAttempts: number },
) {
  await db.query(sql.unsafe`
    UPDATE verification_codes SET superseded_at = now()
    WHERE user_id = ${code.userId} AND purpose = ${code.purpose} AND consumed_at IS NULL AND superseded_at IS NULL`);
  await db.query(sql.unsafe`
    INSERT INTO verification_codes (id, user_id, purpose, code_hash, expires_at, max_attempts)
    VALUES (${code.id}, ${code.userId}, ${code.purpose}, ${sql.binary(code.hash)},
            ${sql.timestamp(code.expiresAt)}, ${code.maxAttempts})`);
}

const StoredCode = z.strictObject({
  id: z.string(),
  hash: z.instanceof(Buffer),
  expiresAt: z.string(),
  attempts: z.number(),
  maxAttempts: z.number(),
});

/** The newest unconsumed, unsuperseded code of this purpose, locked until the transaction ends. */
export function findCurrentVerificationCode(db: CommonQueryMethods, userId: string, purpose: Purpose) {
  return db.maybeOne(sql.type(StoredCode)`
    SELECT id, code_hash AS hash, expires_at AS "expiresAt", attempts, max_attempts AS "maxAttempts"
    FROM verification_codes
    WHERE user_id = ${userId} AND purpose = ${purpose} AND consumed_at IS NULL AND superseded_at IS NULL
    ORDER BY created_at DESC
    LIMIT 1
    FOR UPDATE`);
}

export function recordFailedAttempt(db: CommonQueryMethods, id: string) {
  return db.query(sql.unsafe`UPDATE verification_codes SET attempts = attempts + 1 WHERE id = ${id}`);
}

export function markCodeConsumed(db: CommonQueryMethods, id: string) {
  return db.query(sql.unsafe`UPDATE verification_codes SET consumed_at = now() WHERE id = ${id}`);
}
