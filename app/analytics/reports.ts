import type { CommonQueryMethods } from 'slonik';
import { findCacheSavings } from '../../sql/usage-cache-savings.ts';
import { findUsageByLocalDayAndHour, isTimeZoneKnownToDatabase } from '../../sql/usage-heatmap.ts';
import { findModelEfficiency } from '../../sql/usage-model-efficiency.ts';
import type { UsageWindow } from '../../sql/usage-window.ts';
import { ValidationError } from '../core/errors.ts';

/** Zone names PostgreSQL was asked about, per pool (reading pg_timezone_names scans its tz files). */
const knownZones = new WeakMap<CommonQueryMethods, Map<string, boolean>>();

async function databaseKnowsZone(db: CommonQueryMethods, timeZone: string): Promise<boolean> {
  let zones = knownZones.get(db);
  if (!zones) knownZones.set(db, (zones = new Map([['UTC', true]])));
  let known = zones.get(timeZone);
  if (known === undefined) {
    known = await isTimeZoneKnownToDatabase(db, timeZone);
    if (zones.size < 1000) zones.set(timeZone, known);
  }
  return known;
}

/** The day-of-week by hour heatmap; cells without usage are left out. */
export async function usageHeatmap(db: CommonQueryMethods, window: UsageWindow, timeZone: string) {
  // PostgreSQL converts the instants; a zone the runtime knows but its tz database does not is a 400, not a 500.
  if (!(await databaseKnowsZone(db, timeZone))) {
    throw new ValidationError([{ path: ['query', 'timezone'], message: 'must be a known IANA time zone' }]);
  }
  const cells = await findUsageByLocalDayAndHour(db, window, timeZone);
  return { timezone: timeZone, cells };
}

/** Per-model cost, tokens, executions and latency, highest cost first. */
export async function usageModelEfficiency(db: CommonQueryMethods, window: UsageWindow, limit: number) {
  return findModelEfficiency(db, window, limit);
}

/** Prompt-cache savings and hit rate; `hitRate` is 0 when there is no input at all. */
export async function usageCacheSavings(db: CommonQueryMethods, window: UsageWindow) {
  const row = await findCacheSavings(db, window);
  return {
    estimatedSavingsUsd: row.estimatedSavingsUsd,
    hitRate: row.totalInputTokens === 0 ? 0 : row.totalCacheReadTokens / row.totalInputTokens,
    totalCacheReadTokens: row.totalCacheReadTokens,
    totalInputTokens: row.totalInputTokens,
    skippedModelsCount: row.skippedModelsCount,
  };
}
