/** The three totals endpoints: `summary` (the window), `daily` (per local day) and `by-agent`. */
import { TZDate } from '@date-fns/tz';
import type { CommonQueryMethods } from 'slonik';
import { findUsageByAgent, findUsageTotals } from '../../sql/usage-summary.ts';
import { findUsageByBucket } from '../../sql/usage-time-series.ts';
import type { UsageWindow } from '../../sql/usage-window.ts';
import { denseBucketStarts } from './time-series.ts';

/** `summary`: totals of the window. */
export async function usageSummary(db: CommonQueryMethods, window: UsageWindow) {
  return findUsageTotals(db, window);
}

/** `by-agent`: totals per agent, highest cost first; usage without an agent has `agentId` null. */
export async function usageByAgent(db: CommonQueryMethods, window: UsageWindow) {
  return findUsageByAgent(db, window);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const localDate = (start: Date, timeZone: string) => {
  const local = new TZDate(start.getTime(), timeZone);
  return `${pad(local.getFullYear(), 4)}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
};

/** `daily`: dense local calendar days of the window with their totals and breakdown. */
export async function usageDaily(db: CommonQueryMethods, window: UsageWindow, timeZone: string) {
  const starts = denseBucketStarts(window, 'day', timeZone);
  const rows = await findUsageByBucket(db, window, starts, 'none');
  const days = starts.map((start) => ({
    date: localDate(start, timeZone),
    totalTokens: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    totalCostUsd: 0,
    executionsCount: 0,
  }));
  for (const row of rows) {
    const { idx: _idx, key: _key, ...totals } = row;
    Object.assign(days[row.idx - 1]!, totals, { totalTokens: row.inputTokens + row.outputTokens + row.cacheReadTokens });
  }
  return { timezone: timeZone, days };
}
