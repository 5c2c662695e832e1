import { findPlanUsage } from '../../sql/plan-limits.ts';
import type { AppDeps } from '../core/deps.ts';
import { MB } from './limits.ts';

/*
 * How much of its plan's limits an organization uses now (docs/billing.md, "How much of a plan is
 * used"): what its usage page shows beside each limit. Only the acting organization's own figures.
 */

/** Rounded half-up to `places` decimals (figures for people; the limits themselves compare exact values). */
const rounded = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** The acting organization's plan (null: none), its limits, and the current UTC month's figures beside them. */
export async function planUsage(deps: Pick<AppDeps, 'db' | 'clock'>, organizationId: string) {
  const now = deps.clock();
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const row = await findPlanUsage(deps.db, organizationId, month);
  return {
    month: month.toISOString().slice(0, 7),
    plan: row.planId === null || row.planName === null ? null : { id: row.planId, name: row.planName },
    limits: {
      maxAgents: row.maxAgents,
      maxUsers: row.maxUsers,
      maxEndUserMessagesPerMonth: row.maxEndUserMessagesPerMonth,
      maxDocumentsMb: row.maxDocumentsMb,
      monthlyUsageUsd: row.monthlyUsageUsd,
    },
    used: {
      agents: row.agents,
      users: row.users,
      endUserMessages: row.endUserMessages,
      documentsMb: rounded(row.documentBytes / MB, 2),
      usageUsd: rounded(row.usageUsd, 4),
    },
  };
}
