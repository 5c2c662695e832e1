import type { CommonQueryMethods } from 'slonik';
import type { Budget } from '../../../sql/usage-budgets.ts';
import { findUsageTotals } from '../../../sql/usage-summary.ts';
import { usageProjection } from '../projection.ts';

/** Days of history the month-end projection of a budget fits its line to. */
export const PROJECTION_HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;

export type BudgetStatus = 'ok' | 'at_risk' | 'exceeded';

export type BudgetState = {
  monthlyLimitUsd: number;
  alertThresholdsPct: number[];
  enforce: boolean;
  /** `YYYY-MM`, the UTC month of `now`. */
  month: string;
  spentUsd: number;
  /** Month-end spend: spent so far plus the projection's predictions for the month's remaining days; null below 7 days with usage. */
  projectedUsd: number | null;
  status: BudgetStatus;
};

export const utcMonthOf = (now: Date) => now.toISOString().slice(0, 7);

/**
 * Where a budget stands at `now`: the UTC month's spend, its month-end projection and the status
 * (`exceeded`: spend at or above the limit; `at_risk`: the projection above it; else `ok`). The
 * projection is the analytics projection (OLS of daily spend, app/analytics/projection.ts) over
 * the last 30 days, so it has a trend on the month's first days too; its predicted remaining
 * days are added to the month's actual spend.
 */
export async function budgetState(db: CommonQueryMethods, budget: Budget, now: Date): Promise<BudgetState> {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const { organizationId } = budget;
  const totals = await findUsageTotals(db, { organizationId, from: monthStart, to: nextMonth, source: 'all' });
  const spentUsd = totals.totalCostUsd;
  const projection = await usageProjection(db, {
    organizationId,
    from: new Date(now.getTime() - PROJECTION_HISTORY_DAYS * DAY_MS),
    to: now,
    source: 'all',
  });
  const projectedUsd = projection.status === 'ok' ? spentUsd + (projection.projected - projection.actual) : null;
  const status: BudgetStatus =
    spentUsd >= budget.monthlyLimitUsd ? 'exceeded' : projectedUsd !== null && projectedUsd > budget.monthlyLimitUsd ? 'at_risk' : 'ok';
  return {
    monthlyLimitUsd: budget.monthlyLimitUsd,
    alertThresholdsPct: [...budget.alertThresholdsPct],
    enforce: budget.enforce,
    month: utcMonthOf(now),
    spentUsd,
    projectedUsd,
    status,
  };
}
