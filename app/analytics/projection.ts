import { projectFutureTotal } from '@agents/analytics';
import type { CommonQueryMethods } from 'slonik';
import { findDailySpendInWindow } from '../../sql/usage-projection.ts';
import type { UsageWindow } from '../../sql/usage-window.ts';

/** Fewest days with data the projection fits a line to (interface document, "Limits"). */
export const MIN_DAYS = 7;
const DAY_MS = 86_400_000;

export type Projection =
  | { status: 'ok'; actual: number; projected: number; lowerBound: number; upperBound: number; confidencePct: 80 }
  | { status: 'insufficient_data'; minDaysRequired: typeof MIN_DAYS; daysAvailable: number };

const utcDay = (ms: number) => Math.floor(ms / DAY_MS);

/**
 * Whole UTC days after the day that contains `to - 1 ms`, through the last day of that month,
 * as day offsets from the UTC day of `from` (docs/interface.md §5).
 */
export function remainingDaysOfMonth(from: Date, to: Date): number[] {
  const lastMs = to.getTime() - 1;
  const last = new Date(lastMs);
  const monthEnd = utcDay(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1)) - 1;
  const future: number[] = [];
  for (let day = utcDay(lastMs) + 1; day <= monthEnd; day++) future.push(day - utcDay(from.getTime()));
  return future;
}

/**
 * Month-end cost projection (docs/interface.md §5): OLS of daily spend on the day index over the days
 * with data, the k remaining days of the month predicted and floored at 0, and the 80%
 * prediction interval for their sum (@agents/analytics `projectFutureTotal`).
 */
export async function usageProjection(db: CommonQueryMethods, window: UsageWindow): Promise<Projection> {
  const days = await findDailySpendInWindow(db, window);
  if (days.length < MIN_DAYS) return { status: 'insufficient_data', minDaysRequired: MIN_DAYS, daysAvailable: days.length };
  const actual = days[0]!.windowCostUsd;
  const futureTs = remainingDaysOfMonth(window.from, window.to);
  if (futureTs.length === 0) {
    return { status: 'ok', actual, projected: actual, lowerBound: actual, upperBound: actual, confidencePct: 80 };
  }
  const { predictedSum, halfWidth } = projectFutureTotal({
    points: days.map((day) => ({ t: day.t, cost: day.costUsd })),
    futureTs,
    confidence: 0.8,
  });
  const projected = actual + predictedSum;
  return {
    status: 'ok',
    actual,
    projected,
    lowerBound: Math.max(actual, projected - halfWidth),
    upperBound: projected + halfWidth,
    confidencePct: 80,
  };
}
