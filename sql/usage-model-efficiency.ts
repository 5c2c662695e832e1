import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { rawFilters, ts, usageSlices, type UsageWindow } from './usage-window.ts';

const ModelEfficiencyRow = z.strictObject({
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
 * latency mean (from the rollup's sums, exact as numeric) and p95.
 *
 * The p95 equals PostgreSQL's `percentile_cont(0.95)` over the raw latencies of the model in
 * the window (src/backend/utils/adt/orderedsetaggs.c: with n values in ascending order,
 * pos = 0.95 * (n - 1), result = v[floor(pos)] + (v[ceil(pos)] - v[floor(pos)]) * (pos -
 * floor(pos)) in float8). n is the rollup's exact latency count, and the one or two values
 * are found walking the model's latencies from the top (index usage_events_org_model_latency_idx),
 * which reads only about 5% of the model's rows (docs/analytics.md, "Decisions", was ADR 0044).
 */
export async function findModelEfficiency(
  db: CommonQueryMethods,
  window: UsageWindow,
  limit: number,
): Promise<readonly ModelEfficiencyRow[]> {
  return db.any(sql.type(ModelEfficiencyRow)`
    WITH top_models AS (
      SELECT model_id, sum(cost_usd) AS cost, sum(input_tokens + output_tokens + cache_read_tokens) AS tokens,
             sum(events) AS events, sum(latency_sum) AS latency_sum, sum(latency_count) AS latency_count,
             0.95::float8 * (sum(latency_count) - 1)::float8 AS pos
      FROM (${usageSlices(window, 'day')}) slices
      GROUP BY model_id
      ORDER BY cost DESC, model_id COLLATE "C" ASC
      LIMIT ${limit}
    )
    SELECT t.model_id AS "modelId",
           CASE WHEN t.latency_count > 0 THEN (t.latency_sum::numeric / t.latency_count::numeric)::float8 END AS "avgLatencyMs",
           CASE WHEN t.latency_count > 0 THEN
             w.low::float8 + (w.high::float8 - w.low::float8) * (t.pos - floor(t.pos)) END AS "p95LatencyMs",
           t.cost::float8 AS "totalCostUsd", t.tokens::int8 AS "totalTokens", t.events::int8 AS "executionsCount"
    FROM top_models t
    LEFT JOIN LATERAL (
      -- Descending: v[ceil(pos)] is at offset n - 1 - ceil(pos), v[floor(pos)] right after it
      -- when the two differ (the offset is clamped for models without latencies, answered NULL).
      SELECT max(latency_ms) AS high, min(latency_ms) AS low
      FROM (
        SELECT latency_ms
        FROM usage_events
        WHERE organization_id = ${window.organizationId} AND model_id = t.model_id AND latency_ms IS NOT NULL
          AND created_at >= ${ts(window.from)} AND created_at < ${ts(window.to)} ${rawFilters(window)}
        ORDER BY latency_ms DESC
        OFFSET greatest(0, t.latency_count - 1 - ceil(t.pos))::int8
        LIMIT CASE WHEN ceil(t.pos) = floor(t.pos) THEN 1 ELSE 2 END
      ) top
    ) w ON t.latency_count > 0
    ORDER BY t.cost DESC, t.model_id COLLATE "C" ASC`);
}
