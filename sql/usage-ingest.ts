import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { UsageEventInput } from './usage-events.ts';
import { IdRow } from './rows.ts';

/**
 * One event from outside the service (events API or OTLP), stored by `insertUsageEvents`:
 * `ingestKey` is its idempotency key within the organization (`event:<id>` or
 * `otlp:<traceId>:<spanId>`).
 */
export type IngestedUsageEvent = UsageEventInput & { ingestKey: string };

const PositionsRow = z.strictObject({ positions: z.array(z.number().int()) });

/**
 * The positions (0-based) of the ingest keys the organization has not stored yet, as one array
 * in one row: a resent batch reads back an empty array. The keys travel as one JSON text
 * parameter (native JSON.stringify; a text[] parameter is escaped element by element in JS).
 */
export async function findUnstoredIngestKeys(
  db: CommonQueryMethods,
  organizationId: string,
  ingestKeys: readonly string[],
): Promise<number[]> {
  if (ingestKeys.length === 0) return [];
  return db.oneFirst(sql.type(PositionsRow)`
    SELECT coalesce(array_agg(k.n - 1 ORDER BY k.n), '{}')::int4[] AS positions
    FROM json_array_elements_text(${JSON.stringify(ingestKeys)}::json) WITH ORDINALITY AS k (ingest_key, n)
    WHERE NOT EXISTS (
      SELECT 1 FROM usage_ingest_keys s WHERE s.organization_id = ${organizationId} AND s.ingest_key = k.ingest_key)`);
}

/**
 * Which of these agent ids are agents of the organization, archived ones included: usage is
 * reported after the fact, and an archived agent's usage stays counted (docs/analytics.md).
 */
export async function findAgentIdsOfOrganization(
  db: CommonQueryMethods,
  organizationId: string,
  agentIds: readonly string[],
): Promise<Set<string>> {
  if (agentIds.length === 0) return new Set();
  const found = await db.anyFirst(sql.type(IdRow)`
    SELECT id::text FROM agents WHERE organization_id = ${organizationId} AND id = ANY(${sql.array([...agentIds], 'uuid')})`);
  return new Set(found);
}

/** Which of `userIds` are users of the organization (its staff or its clients), lowercased. */
export async function findUserIdsOfOrganization(
  db: CommonQueryMethods,
  organizationId: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const found = await db.anyFirst(sql.type(IdRow)`
    SELECT id::text FROM users WHERE organization_id = ${organizationId} AND id = ANY(${sql.array([...userIds], 'uuid')})`);
  return new Set(found);
}
