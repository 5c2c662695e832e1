import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow, IdRow } from './rows.ts';

/** Scopes an API key may carry (`POST /api/api-keys`). */
export const API_KEY_SCOPES = ['usage:write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const ApiKey = z.strictObject({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

const apiKeyColumns = sql.fragment`
  id, name, scopes, prefix, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

export function insertApiKey(
  db: CommonQueryMethods,
  key: {
    id: string;
    organizationId: string;
    name: string;
    scopes: readonly string[];
    prefix: string;
    keyHash: Buffer;
    createdBy: string | null;
    createdAt: Date;
  },
) {
  return db.one(sql.type(ApiKey)`
    INSERT INTO api_keys (id, organization_id, name, scopes, prefix, key_hash, created_by, created_at)
    VALUES (${key.id}, ${key.organizationId}, ${key.name}, ${sql.array([...key.scopes], 'text')}, ${key.prefix},
            ${sql.binary(key.keyHash)}, ${key.createdBy}, ${sql.timestamp(key.createdAt)})
    RETURNING ${apiKeyColumns}`);
}

/**
 * How many keys the organization holds, counted under a lock on its row that the caller's
 * transaction keeps until it ends: concurrent creates of one organization count one after another,
 * so a check against the count cannot be passed twice. Two statements on purpose: in READ
 * COMMITTED the count, a statement of its own, sees what a create that held the lock before
 * committed (a count inside the locking statement would use that statement's older snapshot).
 * `FOR NO KEY UPDATE`: foreign-key checks of other tables on the organization are not blocked.
 */
export async function countApiKeysUnderLock(tx: CommonQueryMethods, organizationId: string): Promise<number> {
  await tx.maybeOne(sql.type(IdRow)`
    SELECT id FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`);
  return tx.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n FROM api_keys WHERE organization_id = ${organizationId}`);
}

/** The organization's keys, oldest first (never their hashes). */
export function listApiKeysOfOrganization(db: CommonQueryMethods, organizationId: string) {
  return db.any(sql.type(ApiKey)`
    SELECT ${apiKeyColumns} FROM api_keys WHERE organization_id = ${organizationId} ORDER BY created_at, id`);
}

/** Deletes the organization's key; false when it has no key of that id. */
export async function deleteApiKeyOfOrganization(db: CommonQueryMethods, organizationId: string, keyId: string): Promise<boolean> {
  const deleted = await db.maybeOneFirst(sql.type(IdRow)`
    DELETE FROM api_keys WHERE id = ${keyId} AND organization_id = ${organizationId} RETURNING id`);
  return deleted !== null;
}

const KeyHolder = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  scopes: z.array(z.string()),
  lastUsedAt: z.string().nullable(),
});
export type KeyHolder = z.infer<typeof KeyHolder>;

/** The key stored with this hash, read on every request that presents one (no cache outlives a delete). */
export function findApiKeyByHash(db: CommonQueryMethods, keyHash: Buffer) {
  return db.maybeOne(sql.type(KeyHolder)`
    SELECT id, organization_id AS "organizationId", scopes, last_used_at AS "lastUsedAt"
    FROM api_keys WHERE key_hash = ${sql.binary(keyHash)}`);
}

/**
 * Records a use at `now` unless one was recorded after `notBefore`: the condition in the
 * statement keeps concurrent requests of one minute to a single write.
 */
export function touchApiKey(db: CommonQueryMethods, keyId: string, now: Date, notBefore: Date) {
  return db.query(sql.unsafe`
    UPDATE api_keys SET last_used_at = ${sql.timestamp(now)}
    WHERE id = ${keyId} AND (last_used_at IS NULL OR last_used_at <= ${sql.timestamp(notBefore)})`);
}
