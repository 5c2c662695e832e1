import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ActionType, UsageSource } from './usage-window.ts';

/**
 * One event from outside the service (events API or OTLP). `ingestKey` is its idempotency key
 * within the organization (`event:<id>` or `otlp:<traceId>:<spanId>`); `costUsd` null: priced
 * from model_pricing as the row is written.
 */
export type IngestedUsageEvent = {
  id: string;
  organizationId: string;
  ingestKey: string;
  agentId: string | null;
  userId: string | null;
  modelId: string;
  actionType: ActionType;
  source: UsageSource;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number | null;
  latencyMs: number | null;
  createdAt: string;
};

/**
 * Inserts the events whose ingest key the organization has not stored yet, in one statement,
 * and returns how many were new. A missing cost is the model's price at this moment (0 for a
 * model without one), so a later price change leaves stored rows as they are. Keys repeated
 * inside the batch count once. The rollup triggers see only the rows actually inserted.
 */
export async function insertIngestedUsageEvents(db: CommonQueryMethods, rows: readonly IngestedUsageEvent[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.oneFirst(sql.type(z.strictObject({ inserted: z.coerce.number().int() }))`
    WITH inserted AS (
      INSERT INTO usage_events (id, organization_id, agent_id, user_id, model_id, action_type, source, input_tokens,
                                output_tokens, cache_read_tokens, cost_usd, latency_ms, created_at, ingest_key)
      SELECT e.id, e.organization_id, e.agent_id, e.user_id, e.model_id, e.action_type, e.source, e.input_tokens,
             e.output_tokens, e.cache_read_tokens,
             -- Capped at the column's largest value: absurd token counts times absurd prices are no 500.
             CASE WHEN e.cost_usd IS NOT NULL THEN e.cost_usd
                  WHEN p.model_id IS NULL THEN 0
                  ELSE least((e.input_tokens * p.input_usd_per_mtok + e.output_tokens * p.output_usd_per_mtok
                              + e.cache_read_tokens * p.cache_read_usd_per_mtok) / 1000000, 9999999999) END,
             e.latency_ms, e.created_at, e.ingest_key
      FROM ${sql.unnest(
        rows.map((row) => [
          row.id,
          row.organizationId,
          row.agentId,
          row.userId,
          row.modelId,
          row.actionType,
          row.source,
          row.inputTokens,
          row.outputTokens,
          row.cacheReadTokens,
          row.costUsd === null ? null : String(row.costUsd),
          row.latencyMs,
          row.createdAt,
          row.ingestKey,
        ]),
        ['uuid', 'uuid', 'uuid', 'uuid', 'text', 'text', 'text', 'int8', 'int8', 'int8', 'numeric', 'int4', 'timestamptz', 'text'],
      )} AS e(id, organization_id, agent_id, user_id, model_id, action_type, source, input_tokens, output_tokens,
              cache_read_tokens, cost_usd, latency_ms, created_at, ingest_key)
      LEFT JOIN model_pricing p ON p.model_id = e.model_id
      ON CONFLICT (organization_id, ingest_key) WHERE ingest_key IS NOT NULL DO NOTHING
      RETURNING 1
    )
    SELECT count(*) AS inserted FROM inserted`);
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
