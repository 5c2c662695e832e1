import { bucketStarts, countBuckets, deriveGranularity, type Granularity } from '@agents/analytics';
import type { CommonQueryMethods } from 'slonik';
import { findUsageByBucket, type BucketRow, type UsageGroupBy } from '../../sql/usage-time-series.ts';
import type { UsageWindow } from '../../sql/usage-window.ts';
import { ValidationError } from '../core/errors.ts';

/** Largest number of buckets one answer may hold (docs/interface.md §5). */
export const MAX_BUCKETS = 10_000;

type Totals = { totalTokens: number; totalCostUsd: number };
export type TimeSeriesBucket = Totals & { bucket: string; series?: Record<string, Totals> };
export type TimeSeries = { granularity: Granularity; timezone: string; buckets: TimeSeriesBucket[] };

/** The effective granularity: the requested one, else derived from the window length. */
export function effectiveGranularity(window: UsageWindow, requested: Granularity | undefined): Granularity {
  return requested ?? deriveGranularity(window.from.getTime(), window.to.getTime());
}

/** The dense bucket starts of a window; 400 when they would exceed {@link MAX_BUCKETS}. */
export function denseBucketStarts(window: UsageWindow, granularity: Granularity, timeZone: string): Date[] {
  const options = { from: window.from, to: window.to, granularity, timeZone };
  if (countBuckets(options, MAX_BUCKETS) > MAX_BUCKETS) {
    throw new ValidationError([
      { path: ['query', 'granularity'], message: `the window needs more than ${MAX_BUCKETS} ${granularity} buckets` },
    ]);
  }
  return bucketStarts(options);
}

const tokensOf = (row: BucketRow) => row.inputTokens + row.outputTokens + row.cacheReadTokens;

/**
 * Dense buckets, oldest first. With a breakdown, every key seen in the window appears in every
 * bucket (zeros included), so a client can stack the series without filling gaps.
 */
export async function usageTimeSeries(
  db: CommonQueryMethods,
  window: UsageWindow,
  options: { granularity: Granularity; groupBy: UsageGroupBy; timeZone: string },
): Promise<TimeSeries> {
  const starts = denseBucketStarts(window, options.granularity, options.timeZone);
  const rows = await findUsageByBucket(db, window, starts, options.groupBy);
  const buckets: TimeSeriesBucket[] = starts.map((start) => ({ bucket: start.toISOString(), totalTokens: 0, totalCostUsd: 0 }));
  const keys = [...new Set(rows.flatMap((row) => (row.key === null ? [] : [row.key])))].sort();
  if (options.groupBy !== 'none') {
    for (const bucket of buckets) {
      bucket.series = Object.fromEntries(keys.map((key) => [key, { totalTokens: 0, totalCostUsd: 0 }]));
    }
  }
  for (const row of rows) {
    const bucket = buckets[row.idx - 1]!;
    const totals = { totalTokens: tokensOf(row), totalCostUsd: row.totalCostUsd };
    if (row.key === null) Object.assign(bucket, totals);
    else bucket.series![row.key] = totals;
  }
  return { granularity: options.granularity, timezone: options.timeZone, buckets };
}
