/**
 * Bucket granularity chosen from the length of a reporting window.
 *
 * Rule (service docs/interface.md §5): d = to − from; d ≤ 7 days → 'hour'; d ≤ 90 days → 'day';
 * d ≤ 365 days → 'week'; otherwise 'month'. Bounds are inclusive; days are fixed
 * 86 400 000 ms spans (the window length is absolute time, not calendar days).
 */

/** Width of an analytics bucket. */
export type Granularity = 'hour' | 'day' | 'week' | 'month';

const DAY_MS = 86_400_000;

/** Upper bound (inclusive, in ms) of the window length for each granularity but 'month'. */
export const GRANULARITY_LIMITS_MS = {
  hour: 7 * DAY_MS,
  day: 90 * DAY_MS,
  week: 365 * DAY_MS,
} as const;

/**
 * Picks the bucket granularity for the window [fromMs, toMs).
 *
 * @param fromMs - window start, epoch milliseconds.
 * @param toMs - window end, epoch milliseconds (≥ fromMs).
 * @returns 'hour' up to 7 days inclusive, 'day' up to 90 days, 'week' up to 365 days, else 'month'.
 * @throws RangeError when an argument is not finite or toMs < fromMs.
 * @example deriveGranularity(0, 7 * 86_400_000) // 'hour'; one more ms gives 'day'
 */
export function deriveGranularity(fromMs: number, toMs: number): Granularity {
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) {
    throw new RangeError(`deriveGranularity needs finite epoch milliseconds (got ${fromMs}, ${toMs})`);
  }
  const d = toMs - fromMs;
  if (d < 0) throw new RangeError(`deriveGranularity needs toMs >= fromMs (got a length of ${d} ms)`);
  if (d <= GRANULARITY_LIMITS_MS.hour) return 'hour';
  if (d <= GRANULARITY_LIMITS_MS.day) return 'day';
  if (d <= GRANULARITY_LIMITS_MS.week) return 'week';
  return 'month';
}
