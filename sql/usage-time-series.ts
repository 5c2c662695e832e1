import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { usageSlices, type RollupGrain, type UsageWindow } from './usage-window.ts';

export type UsageGroupBy = 'none' | 'action' | 'model';

const BucketRow = z.strictObject({
  /** 1-based index into the bucket starts. */
  idx: z.coerce.number().int(),
  /** The action or model; NULL on the bucket's total row. */
  key: z.string().nullable(),
  inputTokens: z.coerce.number(),
  outputTokens: z.coerce.number(),
  cacheReadTokens: z.coerce.number(),
  totalCostUsd: z.coerce.number(),
  executionsCount: z.coerce.number(),
});
export type BucketRow = z.infer<typeof BucketRow>;

const GROUP_COLUMN = { action: 'action_type', model: 'model_id' } as const;
const GRAIN: Record<UsageGroupBy, RollupGrain> = { none: 'slot', action: 'slot-action', model: 'slot-model' };

/**
 * Usage summed per bucket (and per action or model): each slice goes to the bucket whose
 * start is the greatest of `bucketStarts` not after it (PostgreSQL `width_bucket` over a
 * sorted array). The starts come from @agents/analytics, so the zone rules live in one place.
 */
export async function findUsageByBucket(
  db: CommonQueryMethods,
  window: UsageWindow,
  bucketStarts: Date[],
  groupBy: UsageGroupBy,
): Promise<readonly BucketRow[]> {
  const key = groupBy === 'none' ? sql.fragment`NULL::text` : sql.identifier([GROUP_COLUMN[groupBy]]);
  const starts = sql.array(
    bucketStarts.map((start) => start.toISOString()),
    'timestamptz',
  );
  // With a breakdown, the rows with a NULL key are the bucket totals (summed exactly in numeric).
  const grouping = groupBy === 'none' ? sql.fragment`idx, key` : sql.fragment`GROUPING SETS ((idx), (idx, key))`;
  return db.any(sql.type(BucketRow)`
    SELECT idx, key,
           sum(input_tokens)::int8 AS "inputTokens", sum(output_tokens)::int8 AS "outputTokens",
           sum(cache_read_tokens)::int8 AS "cacheReadTokens", sum(cost_usd)::float8 AS "totalCostUsd",
           sum(events)::int8 AS "executionsCount"
    FROM (
      SELECT width_bucket(at, ${starts}) AS idx, ${key} AS key,
             input_tokens, output_tokens, cache_read_tokens, cost_usd, events
      FROM (${usageSlices(window, GRAIN[groupBy])}) slices
    ) keyed
    GROUP BY ${grouping}
    ORDER BY idx, key NULLS FIRST`);
}
