import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Records a hand-off (hashes only) and clears the expired ones on the way. */
export async function insertSignInHandoff(
  db: CommonQueryMethods,
  handoff: { codeHash: Buffer; stateHash: Buffer; userId: string; expiresAt: Date; now: Date },
) {
  await db.query(sql.unsafe`DELETE FROM sign_in_handoffs WHERE expires_at <= ${sql.timestamp(handoff.now)}`);
  await db.query(sql.unsafe`
    INSERT INTO sign_in_handoffs (code_hash, state_hash, user_id, expires_at)
    VALUES (${sql.binary(handoff.codeHash)}, ${sql.binary(handoff.stateHash)}, ${handoff.userId},
            ${sql.timestamp(handoff.expiresAt)})`);
}

const TakenHandoff = z.strictObject({ userId: z.string(), expired: z.boolean() });

/**
 * Takes (deletes and answers) the hand-off with this code and state, in one statement: a
 * hand-off is redeemed at most once. A right code with a wrong state is neither answered nor
 * consumed.
 */
export function takeSignInHandoff(db: CommonQueryMethods, codeHash: Buffer, stateHash: Buffer, now: Date) {
  return db.maybeOne(sql.type(TakenHandoff)`
    DELETE FROM sign_in_handoffs
    WHERE code_hash = ${sql.binary(codeHash)} AND state_hash = ${sql.binary(stateHash)}
    RETURNING user_id AS "userId", expires_at <= ${sql.timestamp(now)} AS expired`);
}
