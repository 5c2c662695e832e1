import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { Sealed } from './sealed.ts';

const ProviderKey = z.strictObject({
  keyId: z.string(),
  ciphertext: z.instanceof(Buffer),
  baseUrl: z.string().nullable(),
  keyLastFour: z.string(),
});
export type ProviderKeyRow = z.infer<typeof ProviderKey>;

/** The organization's own model-provider key (sealed), or null. */
export function findProviderKey(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(ProviderKey)`
    SELECT key_id AS "keyId", ciphertext, base_url AS "baseUrl", key_last_four AS "keyLastFour"
    FROM organization_provider_keys WHERE organization_id = ${organizationId}`);
}

/** `findProviderKey`'s row as one JSON value (the sealed key as hex), for a statement that reads more (sql/chat-turn-reads.ts). */
export const providerKeyJson = (organizationId: string) => sql.fragment`
  (SELECT json_build_object('keyId', key_id, 'ciphertext', encode(ciphertext, 'hex'), 'baseUrl', base_url, 'keyLastFour', key_last_four)
   FROM organization_provider_keys WHERE organization_id = ${organizationId})`;

/** What `providerKeyJson` answers, read as `findProviderKey`'s row. */
export const ProviderKeyJson = ProviderKey.extend({ ciphertext: z.string().transform((hex) => Buffer.from(hex, 'hex')) }).nullable();

export async function upsertProviderKey(
  db: CommonQueryMethods,
  key: { organizationId: string; sealed: Sealed; baseUrl: string | null; keyLastFour: string; now: Date },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO organization_provider_keys (organization_id, key_id, ciphertext, base_url, key_last_four, updated_at)
    VALUES (${key.organizationId}, ${key.sealed.keyId}, ${sql.binary(key.sealed.ciphertext)}, ${key.baseUrl},
            ${key.keyLastFour}, ${key.now.toISOString()})
    ON CONFLICT (organization_id) DO UPDATE SET key_id = excluded.key_id, ciphertext = excluded.ciphertext,
      base_url = excluded.base_url, key_last_four = excluded.key_last_four, updated_at = excluded.updated_at`);
}

export async function deleteProviderKey(db: CommonQueryMethods, organizationId: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM organization_provider_keys WHERE organization_id = ${organizationId}`);
}
