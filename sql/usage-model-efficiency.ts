import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { coverWithDays, rawFilters, readsRawOnly, rollupFilters, ts, type DayCover, type UsageWindow } from './usage-window.ts';

const ModelEfficiencyRow = z.strictObject({
  modelId: z.string(),
  avgLatencyMs: z.coerce.number().nullable(),
  p95LatencyMs: z.coerce.number().nullable(),
  totalCostUsd: z.coerce.number(),
  totalTokens: z.coerce.number(),
  executionsCount: z.coerce.number(),
});
export type ModelEfficiencyRow = z.infer<typeof ModelEfficiencyRow>;

/** Thresholds tried per model and pass: the bracket shrinks eightfold a pass (about 6 passes for latencies up to 2^18 ms). */
const PROBES = [1, 2, 3, 4, 5, 6, 7];
/** A bracket holding at most this many values is read out and sorted instead of narrowed further. */
const CANDIDATES = 4096;
/** Is model `i` of the search row `s` still narrowing its bracket? */
const searching = (i: FragmentSqlToken) => sql.fragment`(s.hi[${i}] - s.lo[${i}] > 1 AND s.hi_n[${i}] - s.lo_n[${i}] > ${CANDIDATES})`;
/** The k-th of the PROBES thresholds of model `i`, between its bounds lo and hi of the search row `s`. */
const probe = (k: number, i: FragmentSqlToken) =>
  sql.fragment`(s.lo[${i}] + greatest(1, (s.hi[${i}] - s.lo[${i}])::int8 * ${k} / ${PROBES.length + 1})::int)`;

/**
 * Memory for the statement's materialized latency arrays (4 bytes a latency): a year of the
 * 100M-row benchmark's largest organization (17.5M latencies) stays in memory, where the default
 * 4 MB wrote them to a temporary file and read it back on every pass (0.50 s instead of 0.44 s).
 * A larger window spills the same way: slower, the same answer.
 */
const LATENCIES_WORK_MEM = '128MB';

/** Raw rows of `[from, to)` with their sign: 1 adds them to the days read whole, -1 takes them away. */
const rawRows = (window: UsageWindow, [from, to]: [Date, Date], sign: 1 | -1) => sql.fragment`
  SELECT e.model_id, e.latency_ms, e.cost_usd::numeric AS cost_usd,
         e.input_tokens + e.output_tokens + e.cache_read_tokens AS tokens, ${sign}::int AS sign
  FROM usage_events e
  WHERE e.organization_id = ${window.organizationId} AND e.created_at >= ${ts(from)} AND e.created_at < ${ts(to)} ${rawFilters(window, 'e')}`;

/** The raw corrections of a day cover, as one row set (possibly empty). */
const corrections = (window: UsageWindow, cover: DayCover) => {
  const parts = [...cover.add.map((range) => rawRows(window, range, 1)), ...cover.subtract.map((range) => rawRows(window, range, -1))];
  return parts.length > 0
    ? sql.join(parts, sql.fragment` UNION ALL `)
    : sql.fragment`SELECT NULL::text AS model_id, NULL::int AS latency_ms, NULL::numeric AS cost_usd, NULL::int8 AS tokens, NULL::int AS sign WHERE false`;
};

/**
 * The `limit` models with the highest cost in the window (ties by model id), with their
 * latency mean (from the rollup's sums, exact as numeric) and p95.
 *
 * The p95 equals PostgreSQL's `percentile_cont(0.95)` over the raw latencies of the model in
 * the window (src/backend/utils/adt/orderedsetaggs.c: with n values in ascending order,
 * pos = 0.95 * (n - 1), result = v[floor(pos)] + (v[ceil(pos)] - v[floor(pos)]) * (pos -
 * floor(pos)) in float8). The values come as ascending arrays: one per day rollup row of the
 * days the window reads whole (`coverWithDays`), and per model one of the raw rows added at the
 * edges and one of the raw rows taken away from an edge day read whole (sign -1: counted
 * negatively, removed from the candidates).
 * v[floor(pos)] is found by an eight-way search over the value: the number of values <= x of an
 * ascending array is `width_bucket(x, array)` (a binary search), so each step costs one pass over
 * the arrays, never a sort of all values. Once a model's bracket holds at most CANDIDATES values,
 * those are sliced out of the arrays and sorted, and v[floor(pos)] and v[ceil(pos)] read from them
 * (docs/analytics.md, "Decisions").
 */
export async function findModelEfficiency(
  db: CommonQueryMethods,
  window: UsageWindow,
  limit: number,
): Promise<readonly ModelEfficiencyRow[]> {
  // With an evaluation filter, no day from the rollup: the window's raw rows only.
  const cover: DayCover = readsRawOnly(window)
    ? { dayFrom: window.to, dayTo: window.to, add: [[window.from, window.to]], subtract: [] }
    : coverWithDays(window.from, window.to);
  const days = sql.fragment`d.organization_id = ${window.organizationId} AND d.day >= ${ts(cover.dayFrom)} AND d.day < ${ts(cover.dayTo)} ${rollupFilters(window, 'd')}`;
  return db.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT set_config('work_mem', ${LATENCIES_WORK_MEM}, true)`);
    return tx.any(sql.type(ModelEfficiencyRow)`
    WITH RECURSIVE edges AS MATERIALIZED (
      -- The raw corrections of the whole days, read once for the totals and the p95.
      ${corrections(window, cover)}
    ), top_models AS (
      SELECT row_number() OVER (ORDER BY cost DESC, model_id COLLATE "C" ASC)::int AS idx, *
      FROM (
        SELECT model_id, sum(cost_usd) AS cost, sum(tokens) AS tokens, sum(events) AS events,
               sum(latency_sum) AS latency_sum, sum(latency_count) AS latency_count,
               0.95::float8 * (sum(latency_count) - 1)::float8 AS pos
        FROM (
          SELECT m.model_id, d.cost_usd, d.input_tokens + d.output_tokens + d.cache_read_tokens AS tokens, d.events::int8 AS events,
                 d.latency_sum, d.latency_count::int8 AS latency_count
          FROM usage_rollup_day d
          JOIN usage_models m ON m.code = d.model_code
          WHERE ${days}
          UNION ALL
          SELECT model_id, cost_usd * sign, tokens * sign, sign, coalesce(latency_ms, 0) * sign, (latency_ms IS NOT NULL)::int * sign
          FROM edges
        ) slices
        GROUP BY model_id
        -- A model of an edge day whose rows all lie outside the window nets to no event.
        HAVING sum(events) > 0
        ORDER BY cost DESC, model_id COLLATE "C" ASC
        LIMIT ${limit}
      ) ranked
    ), latencies AS MATERIALIZED (
      -- Each array copied out of TOAST once (by || '{}'): every probe below would otherwise
      -- fetch and reassemble the whole array again (each probe of each pass, once the arrays
      -- outgrow the 2 kB TOAST threshold). Arrays of sign -1 hold values taken away.
      SELECT t.idx, 1 AS sign, d.latencies || '{}'::int[] AS v
      FROM usage_rollup_day d
      JOIN usage_models m ON m.code = d.model_code
      JOIN top_models t ON t.model_id = m.model_id
      WHERE ${days} AND d.latency_count > 0
      UNION ALL
      SELECT t.idx, e.sign, array_agg(e.latency_ms ORDER BY e.latency_ms)
      FROM edges e
      JOIN top_models t ON t.model_id = e.model_id
      WHERE e.latency_ms IS NOT NULL
      GROUP BY t.idx, e.sign
    ), goal AS (
      -- Per model (array index = idx): the 0-based ascending index j = floor(pos) and a bracket
      -- lo < v[j] <= hi with the counts of values <= each: lo_n < j + 1 <= hi_n.
      SELECT array_agg(floor(t.pos)::int8 ORDER BY t.idx) AS j,
             array_agg(coalesce(b.lo - 1, 0) ORDER BY t.idx) AS lo, array_agg(0::int8 ORDER BY t.idx) AS lo_n,
             array_agg(coalesce(b.hi, 0) ORDER BY t.idx) AS hi, array_agg(coalesce(b.n, 0) ORDER BY t.idx) AS hi_n
      FROM top_models t
      LEFT JOIN (
        SELECT idx, min(v[1]) FILTER (WHERE sign > 0) AS lo, max(v[cardinality(v)]) FILTER (WHERE sign > 0) AS hi,
               sum(sign * cardinality(v))::int8 AS n
        FROM latencies GROUP BY idx
      ) b ON b.idx = t.idx
    ), search (j, lo, lo_n, hi, hi_n) AS (
      SELECT j, lo, lo_n, hi, hi_n FROM goal
      UNION ALL
      SELECT s.j, n.lo, n.lo_n, n.hi, n.hi_n
      FROM search s
      CROSS JOIN LATERAL (
        -- One pass over the arrays counts the values <= each of the PROBES thresholds of every
        -- model still searching; its bracket shrinks to the two thresholds around rank j + 1.
        SELECT array_agg(coalesce(b.lo, s.lo[g.i]) ORDER BY g.i) AS lo, array_agg(coalesce(b.lo_n, s.lo_n[g.i]) ORDER BY g.i) AS lo_n,
               array_agg(coalesce(b.hi, s.hi[g.i]) ORDER BY g.i) AS hi, array_agg(coalesce(b.hi_n, s.hi_n[g.i]) ORDER BY g.i) AS hi_n
        FROM generate_subscripts(s.j, 1) g (i)
        LEFT JOIN (
          SELECT l.idx, ARRAY[${sql.join(
            PROBES.map((k) => sql.fragment`sum(l.sign * width_bucket(${probe(k, sql.fragment`l.idx`)}, l.v))`),
            sql.fragment`, `,
          )}] AS n
          FROM latencies l WHERE ${searching(sql.fragment`l.idx`)} GROUP BY l.idx
        ) c ON c.idx = g.i
        LEFT JOIN LATERAL (
          SELECT greatest(s.lo[g.i], max(p.at) FILTER (WHERE p.n < s.j[g.i] + 1)) AS lo,
                 greatest(s.lo_n[g.i], max(p.n) FILTER (WHERE p.n < s.j[g.i] + 1)) AS lo_n,
                 least(s.hi[g.i], min(p.at) FILTER (WHERE p.n >= s.j[g.i] + 1)) AS hi,
                 least(s.hi_n[g.i], min(p.n) FILTER (WHERE p.n >= s.j[g.i] + 1)) AS hi_n
          FROM unnest(ARRAY[${sql.join(
            PROBES.map((k) => probe(k, sql.fragment`g.i`)),
            sql.fragment`, `,
          )}], c.n) p (at, n)
        ) b ON c.idx IS NOT NULL
      ) n
      WHERE EXISTS (SELECT 1 FROM generate_subscripts(s.j, 1) i WHERE ${searching(sql.fragment`i`)})
    ), final AS (
      SELECT * FROM search s WHERE NOT EXISTS (SELECT 1 FROM generate_subscripts(s.j, 1) i WHERE ${searching(sql.fragment`i`)})
    ), bracket AS (
      SELECT t.idx, f.j[t.idx] AS j, f.lo[t.idx] AS lo, f.lo_n[t.idx] AS lo_n, f.hi[t.idx] AS hi, f.hi_n[t.idx] AS hi_n
      FROM top_models t, final f
    ), slices AS MATERIALIZED (
      -- Each array's values inside its model's bracket (a nested loop over the one final row:
      -- the arrays are never sorted or hashed by model, which spilled them to disk).
      SELECT l.idx, l.sign, l.v[width_bucket(f.lo[l.idx], l.v) + 1 : width_bucket(f.hi[l.idx], l.v)] AS v
      FROM latencies l, final f
    ), candidates AS (
      -- The values inside each bracket (at most CANDIDATES per model), in order: those added
      -- less those taken away (a multiset difference).
      SELECT c.idx, array_agg(c.x ORDER BY c.x) AS v
      FROM (
        SELECT s.idx, x FROM slices s CROSS JOIN LATERAL unnest(s.v) x WHERE s.sign > 0
        EXCEPT ALL
        SELECT s.idx, x FROM slices s CROSS JOIN LATERAL unnest(s.v) x WHERE s.sign < 0
      ) c
      GROUP BY c.idx
    )
    SELECT t.model_id AS "modelId",
           CASE WHEN t.latency_count > 0 THEN (t.latency_sum::numeric / t.latency_count::numeric)::float8 END AS "avgLatencyMs",
           CASE WHEN t.latency_count > 0 THEN
             w.low::float8 + (w.high::float8 - w.low::float8) * (t.pos - floor(t.pos)) END AS "p95LatencyMs",
           t.cost::float8 AS "totalCostUsd", t.tokens::int8 AS "totalTokens", t.events::int8 AS "executionsCount"
    FROM top_models t
    JOIN bracket b ON b.idx = t.idx
    LEFT JOIN candidates c ON c.idx = t.idx
    LEFT JOIN LATERAL (
      -- v[j] is candidate j - lo_n (1-based: + 1); v[ceil(pos)] is v[j] or v[j + 1], the next
      -- candidate while j + 1 < hi_n, else the smallest value above the bracket: with k values
      -- above it taken away, it is among the first k + 1 above it of the arrays added.
      WITH taken AS (
        SELECT l.v[width_bucket(b.hi, l.v) + 1 :] AS v FROM latencies l WHERE l.idx = t.idx AND l.sign < 0
      ), above AS (
        SELECT unnest(l.v[width_bucket(b.hi, l.v) + 1 : width_bucket(b.hi, l.v) + 1 + (SELECT coalesce(sum(cardinality(v)), 0) FROM taken)::int]) AS x
        FROM latencies l WHERE l.idx = t.idx AND l.sign > 0
        EXCEPT ALL
        SELECT unnest(v) FROM taken
      )
      SELECT c.v[b.j - b.lo_n + 1] AS low,
             CASE WHEN ceil(t.pos) = floor(t.pos) THEN c.v[b.j - b.lo_n + 1]
                  WHEN b.j + 1 < b.hi_n THEN c.v[b.j - b.lo_n + 2]
                  ELSE (SELECT min(x) FROM above) END AS high
    ) w ON t.latency_count > 0
    ORDER BY t.idx`);
  });
}
