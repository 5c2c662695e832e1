import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DAY_MS, rawFilters, splitWindow, ts, usageSlices, type UsageWindow } from './usage-window.ts';

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
 * floor(pos)) in float8). The values come as ascending arrays: one per day rollup row of the
 * window's whole UTC days, and one per model for the raw rows of the partial days at the edges.
 * v[floor(pos)] is found by bisection over the value: the number of values <= x of an ascending
 * array is `width_bucket(x, array)` (a binary search), so each step costs one pass over the
 * arrays, never a sort of the values; v[ceil(pos)] is the same value or the smallest one above
 * it (docs/analytics.md, "Decisions").
 */
export async function findModelEfficiency(
  db: CommonQueryMethods,
  window: UsageWindow,
  limit: number,
): Promise<readonly ModelEfficiencyRow[]> {
  const { innerFrom, innerTo } = splitWindow(window.from, window.to, DAY_MS);
  return db.any(sql.type(ModelEfficiencyRow)`
    WITH RECURSIVE top_models AS (
      SELECT row_number() OVER (ORDER BY cost DESC, model_id COLLATE "C" ASC)::int AS idx, *
      FROM (
        SELECT model_id, sum(cost_usd) AS cost, sum(input_tokens + output_tokens + cache_read_tokens) AS tokens,
               sum(events) AS events, sum(latency_sum) AS latency_sum, sum(latency_count) AS latency_count,
               0.95::float8 * (sum(latency_count) - 1)::float8 AS pos
        FROM (${usageSlices(window, 'day')}) slices
        GROUP BY model_id
        ORDER BY cost DESC, model_id COLLATE "C" ASC
        LIMIT ${limit}
      ) ranked
    ), latencies AS MATERIALIZED (
      SELECT t.idx, d.latencies AS v
      FROM usage_rollup_day d
      JOIN usage_models m ON m.code = d.model_code
      JOIN top_models t ON t.model_id = m.model_id
      WHERE d.organization_id = ${window.organizationId} AND d.day >= ${ts(innerFrom)} AND d.day < ${ts(innerTo)}
        AND d.latency_count > 0 ${rawFilters(window, 'd')}
      UNION ALL
      SELECT t.idx, array_agg(e.latency_ms ORDER BY e.latency_ms)
      FROM usage_events e
      JOIN top_models t ON t.model_id = e.model_id
      WHERE e.organization_id = ${window.organizationId} AND e.latency_ms IS NOT NULL
        AND ((e.created_at >= ${ts(window.from)} AND e.created_at < ${ts(innerFrom)})
             OR (e.created_at >= ${ts(innerTo)} AND e.created_at < ${ts(window.to)})) ${rawFilters(window, 'e')}
      GROUP BY t.idx
    ), goal AS (
      -- Per model (array index = idx): the 0-based ascending index j = floor(pos), and bounds
      -- lo < v[j] <= hi (count(<= lo) < j + 1 <= count(<= hi)).
      SELECT array_agg(floor(t.pos)::int8 ORDER BY t.idx) AS j,
             array_agg(coalesce(b.lo - 1, 0) ORDER BY t.idx) AS lo,
             array_agg(coalesce(b.hi, 0) ORDER BY t.idx) AS hi
      FROM top_models t
      LEFT JOIN (SELECT idx, min(v[1]) AS lo, max(v[cardinality(v)]) AS hi FROM latencies GROUP BY idx) b ON b.idx = t.idx
    ), search (j, lo, hi) AS (
      SELECT j, lo, hi FROM goal
      UNION ALL
      SELECT s.j,
             array(SELECT CASE WHEN s.hi[i] - s.lo[i] <= 1 OR c.n[i] >= s.j[i] + 1 THEN s.lo[i] ELSE c.mid[i] END
                   FROM generate_subscripts(s.j, 1) i ORDER BY i),
             array(SELECT CASE WHEN s.hi[i] - s.lo[i] > 1 AND c.n[i] >= s.j[i] + 1 THEN c.mid[i] ELSE s.hi[i] END
                   FROM generate_subscripts(s.j, 1) i ORDER BY i)
      FROM search s
      CROSS JOIN LATERAL (
        SELECT array_agg(s.lo[g.i] + (s.hi[g.i] - s.lo[g.i]) / 2 ORDER BY g.i) AS mid,
               array_agg(coalesce(x.n, 0) ORDER BY g.i) AS n
        FROM generate_subscripts(s.j, 1) g (i)
        LEFT JOIN (
          SELECT l.idx, sum(width_bucket(s.lo[l.idx] + (s.hi[l.idx] - s.lo[l.idx]) / 2, l.v)) AS n
          FROM latencies l WHERE s.hi[l.idx] - s.lo[l.idx] > 1 GROUP BY l.idx
        ) x ON x.idx = g.i
      ) c
      WHERE EXISTS (SELECT 1 FROM generate_subscripts(s.j, 1) i WHERE s.hi[i] - s.lo[i] > 1)
    ), found AS (
      SELECT t.idx, s.hi[t.idx] AS low
      FROM top_models t, (SELECT * FROM search s WHERE NOT EXISTS (
        SELECT 1 FROM generate_subscripts(s.j, 1) i WHERE s.hi[i] - s.lo[i] > 1)) s
    )
    SELECT t.model_id AS "modelId",
           CASE WHEN t.latency_count > 0 THEN (t.latency_sum::numeric / t.latency_count::numeric)::float8 END AS "avgLatencyMs",
           CASE WHEN t.latency_count > 0 THEN
             f.low::float8 + (w.high::float8 - f.low::float8) * (t.pos - floor(t.pos)) END AS "p95LatencyMs",
           t.cost::float8 AS "totalCostUsd", t.tokens::int8 AS "totalTokens", t.events::int8 AS "executionsCount"
    FROM top_models t
    JOIN found f ON f.idx = t.idx
    LEFT JOIN LATERAL (
      -- v[ceil(pos)]: v[j] itself when ceil(pos) = j or when more than j + 1 values are <= v[j];
      -- else the smallest value above v[j] (one past its position in each array).
      SELECT CASE WHEN ceil(t.pos) = floor(t.pos) OR sum(width_bucket(f.low, l.v)) >= floor(t.pos) + 2 THEN f.low
                  ELSE min(l.v[width_bucket(f.low, l.v) + 1]) END AS high
      FROM latencies l WHERE l.idx = t.idx
    ) w ON t.latency_count > 0
    ORDER BY t.idx`);
}
