import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { rawFilters, ts, usageSlices, type UsageWindow } from './usage-window.ts';

const ModelEfficiencyRow = z.object({
  modelId: z.string(),
  avgLatencyMs: z.coerce.number().nullable(),
  p95LatencyMs: z.coerce.number().nullable(),
  totalCostUsd: z.coerce.number(),
  totalTokens: z.coerce.number(),
  executionsCount: z.coerce.number(),
});
export type ModelEfficiencyRow = z.infer<typeof ModelEfficiencyRow>;

/**
 * The `limit` models with the highest cost in the window (ties by model id), with their
 * latency mean (from the rollup's sums, exact as numeric) and p95. The p95 is PostgreSQL's
 * `percentile_cont(0.95)` over the raw latencies of those models only; it reads the
 * covering index on (organization_id, created_at) (docs/decisions/0041-p95-from-raw-rows.md).
 */
export async function findModelEfficiency(
  db: CommonQueryMethods,
  window: UsageWindow,
  limit: number,
): Promise<readonly ModelEfficiencyRow[]> {
  return db.any(sql.type(ModelEfficiencyRow)`
    WITH top_models AS (
      SELECT model_id, sum(cost_usd) AS cost, sum(input_tokens + output_tokens + cache_read_tokens) AS tokens,
             sum(events) AS events, sum(latency_sum) AS latency_sum, sum(latency_count) AS latency_count
      FROM (${usageSlices(window, 'day')}) slices
      GROUP BY model_id
      ORDER BY cost DESC, model_id COLLATE "C" ASC
      LIMIT ${limit}
    ),
    p95 AS (
      SELECT model_id, percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
      FROM usage_events
      WHERE organization_id = ${window.organizationId}
        AND created_at >= ${ts(window.from)} AND created_at < ${ts(window.to)}
        AND latency_ms IS NOT NULL
        AND model_id IN (SELECT model_id FROM top_models WHERE latency_count > 0)
        ${rawFilters(window)}
      GROUP BY model_id
    )
    SELECT t.model_id AS "modelId",
           CASE WHEN t.latency_count > 0 THEN (t.latency_sum::numeric / t.latency_count::numeric)::float8 END AS "avgLatencyMs",
           p95.p95 AS "p95LatencyMs",
           t.cost::float8 AS "totalCostUsd", t.tokens::int8 AS "totalTokens", t.events::int8 AS "executionsCount"
    FROM top_models t
    LEFT JOIN p95 ON p95.model_id = t.model_id
    ORDER BY t.cost DESC, t.model_id COLLATE "C" ASC`);
}
