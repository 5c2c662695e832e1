import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { UsageEventInput } from './usage-import.ts';

/**
 * One event from outside the service (events API or OTLP). `ingestKey` is its idempotency key
 * within the organization (`event:<id>` or `otlp:<traceId>:<spanId>`); `costUsd` null: priced
 * from model_pricing as the row is written.
 */
export type IngestedUsageEvent = Omit<UsageEventInput, 'costUsd'> & { ingestKey: string; costUsd: number | null };

/**
 * Inserts the events whose ingest key the organization has not stored yet, in one statement,
 * and returns how many were new. The keys live in usage_ingest_keys (one row per organization
 * and key, whatever the month of the event): the first writer of a key inserts its event, a
 * concurrent writer of the same key waits for it and then skips. A missing cost is the model's
 * price at this moment (0 for a model without one), so a later price change leaves stored rows
 * as they are. Keys repeated inside the batch count once (the first occurrence is stored). The
 * rollup triggers see only the rows actually inserted.
 */
export async function insertIngestedUsageEvents(db: CommonQueryMethods, rows: readonly IngestedUsageEvent[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.oneFirst(sql.type(z.strictObject({ inserted: z.coerce.number().int() }))`
    WITH batch AS (
      SELECT DISTINCT ON (e."organizationId", e."ingestKey") e.*
      -- One JSON text parameter: JSON.stringify is native, where 14 array parameters of 1000
      -- elements were escaped element by element in JS (a tenth of a batch's time in Node).
      FROM ROWS FROM (json_to_recordset(${JSON.stringify(rows)}::json)
        AS (id uuid, "organizationId" uuid, "agentId" uuid, "userId" uuid, "modelId" text, "actionType" usage_action,
            source usage_source, "inputTokens" int8, "outputTokens" int8, "cacheReadTokens" int8, "costUsd" numeric,
            "latencyMs" int4, "createdAt" timestamptz, "ingestKey" text)) WITH ORDINALITY
        AS e(id, "organizationId", "agentId", "userId", "modelId", "actionType", source, "inputTokens", "outputTokens",
             "cacheReadTokens", "costUsd", "latencyMs", "createdAt", "ingestKey", n)
      ORDER BY e."organizationId", e."ingestKey", e.n
    ), fresh AS (
      INSERT INTO usage_ingest_keys (organization_id, ingest_key)
      SELECT "organizationId", "ingestKey" FROM batch ORDER BY 1, 2
      ON CONFLICT DO NOTHING
      RETURNING organization_id, ingest_key
    ), inserted AS (
      INSERT INTO usage_events (id, organization_id, agent_id, user_id, model_id, action_type, source, input_tokens,
                                output_tokens, cache_read_tokens, cost_usd, latency_ms, created_at)
      SELECT e.id, e."organizationId", e."agentId", e."userId", e."modelId", e."actionType", e.source, e."inputTokens",
             e."outputTokens", e."cacheReadTokens",
             -- Capped at the column's largest value: absurd token counts times absurd prices are no 500.
             CASE WHEN e."costUsd" IS NOT NULL THEN e."costUsd"
                  WHEN p.model_id IS NULL THEN 0
                  ELSE least((e."inputTokens" * p.input_usd_per_mtok + e."outputTokens" * p.output_usd_per_mtok
                              + e."cacheReadTokens" * p.cache_read_usd_per_mtok) / 1000000, 9999999999) END,
             e."latencyMs", e."createdAt"
      FROM batch e
      JOIN fresh f ON f.organization_id = e."organizationId" AND f.ingest_key = e."ingestKey"
      LEFT JOIN model_pricing p ON p.model_id = e."modelId"
      ORDER BY e.n
      RETURNING 1
    )
    SELECT count(*) AS inserted FROM inserted`);
}

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
  return db.oneFirst(sql.type(z.strictObject({ positions: z.array(z.number().int()) }))`
    SELECT coalesce(array_agg(k.n - 1 ORDER BY k.n), '{}')::int4[] AS positions
    FROM json_array_elements_text(${JSON.stringify(ingestKeys)}::json) WITH ORDINALITY AS k (ingest_key, n)
    WHERE NOT EXISTS (
      SELECT 1 FROM usage_ingest_keys s WHERE s.organization_id = ${organizationId} AND s.ingest_key = k.ingest_key)`);
}

/** Which of these agent ids are agents of the organization. */
export async function findAgentIdsOfOrganization(
  db: CommonQueryMethods,
  organizationId: string,
  agentIds: readonly string[],
): Promise<Set<string>> {
  if (agentIds.length === 0) return new Set();
  const found = await db.anyFirst(sql.type(z.strictObject({ id: z.string() }))`
    SELECT id::text FROM agents WHERE agency_id = ${organizationId} AND id = ANY(${sql.array([...agentIds], 'uuid')})`);
  return new Set(found);
}
