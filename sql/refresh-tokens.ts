import { sql, type CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';

export function insertRefreshToken(db: CommonQueryMethods, token: { familyId: string; userId: string; hash: Buffer; expiresAt: Date }) {
  return db.query(sql.unsafe`
    INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, expires_at)
    VALUES (${uuidv7()}, ${token.familyId}, ${token.userId}, ${sql.binary(token.hash)},
            ${sql.timestamp(token.expiresAt)})`);
}

const StoredRefreshToken = z.strictObject({
  id: z.string(),
  familyId: z.string(),
  userId: z.string(),
  expiresAt: z.string(),
  rotated: z.boolean(),
  revoked: z.boolean(),
});

/** The token with this hash, locked until the transaction ends so that one use wins. */
export function findRefreshTokenForUpdate(db: CommonQueryMethods, hash: Buffer) {
  return db.maybeOne(sql.type(StoredRefreshToken)`
    SELECT id, family_id AS "familyId", user_id AS "userId", expires_at AS "expiresAt",
           rotated_at IS NOT NULL AS rotated, revoked_at IS NOT NULL AS revoked
    FROM refresh_tokens
    WHERE token_hash = ${sql.binary(hash)}
    FOR UPDATE`);
}

export function markRefreshTokenRotated(db: CommonQueryMethods, id: string) {
  return db.query(sql.unsafe`UPDATE refresh_tokens SET rotated_at = now() WHERE id = ${id}`);
}

export function revokeRefreshTokenFamily(db: CommonQueryMethods, familyId: string) {
  return db.query(sql.unsafe`
    UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = ${familyId} AND revoked_at IS NULL`);
}

export function revokeRefreshTokensOfUser(db: CommonQueryMethods, userId: string) {
  return db.query(sql.unsafe`
    UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`);
}
