import type { BudgetState } from './status.ts';

export type BudgetAlert = { kind: string; subject: string; text: string };

const usd = (amount: number) => `$${amount.toFixed(2)}`;

/**
 * The alerts a budget state calls for: one per threshold the month's spend has reached, and
 * `at_risk` while the projection is above the limit (not once the limit is already spent).
 * Which of them were already sent is the alert table's business (sql/usage-budgets.ts).
 */
export function alertsFor(organizationName: string, state: BudgetState): BudgetAlert[] {
  const alerts: BudgetAlert[] = [];
  const spent = `${usd(state.spentUsd)} of the ${usd(state.monthlyLimitUsd)} monthly limit spent in ${state.month}`;
  for (const pct of [...new Set(state.alertThresholdsPct)].sort((a, b) => a - b)) {
    if (state.spentUsd < (state.monthlyLimitUsd * pct) / 100) continue;
    alerts.push({
      kind: `threshold:${pct}`,
      subject: `${organizationName}: ${pct}% of the monthly AI budget spent`,
      text:
        `${organizationName} has reached ${pct}% of its monthly AI budget: ` +
        `${spent} (USD).\n\nThis is the only alert for this threshold this month.`,
    });
  }
  if (state.status === 'at_risk' && state.projectedUsd !== null) {
    alerts.push({
      kind: 'at_risk',
      subject: `${organizationName}: the monthly AI budget is at risk`,
      text:
        `${organizationName} is projected to spend ${usd(state.projectedUsd)} (USD) by the end of ${state.month}, ` +
        `above its monthly limit of ${usd(state.monthlyLimitUsd)} (USD). So far: ${spent}.`,
    });
  }
  return alerts;
}
