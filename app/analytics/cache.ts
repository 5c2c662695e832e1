import type { Context } from 'koa';
import type { AppDeps } from '../core/deps.ts';
import { AnalyticsCache, ownedUtf8, type AnalyticsCacheStats } from './analytics-cache.ts';

export type { AnalyticsCacheStats };

/** Lifetime of an analytics result (interface document, "Limits"). */
export const ANALYTICS_CACHE_TTL_SECONDS = 300;

/** At most one `analytics cache` log line per this interval, written on a miss (no timer of its own). */
const STATS_LOG_INTERVAL_MS = 60_000;

/**
 * One cache per app instance: the routes are declared once for every app, so the cache hangs
 * off the app's deps object instead of a module global (two apps never share results).
 */
const caches = new WeakMap<AppDeps, { cache: AnalyticsCache; loggedAt: number }>();

function entryOf(deps: AppDeps) {
  let entry = caches.get(deps);
  if (!entry) {
    const now = () => deps.clock().getTime();
    const cache = new AnalyticsCache({ maxBytes: deps.config.analyticsCacheMaxBytes, ttlMs: ANALYTICS_CACHE_TTL_SECONDS * 1000, now });
    entry = { cache, loggedAt: now() };
    caches.set(deps, entry);
  }
  return entry;
}

/** The app's analytics cache (bounded by `ANALYTICS_CACHE_MAX_MB`). */
export const analyticsCache = (deps: AppDeps): AnalyticsCache => entryOf(deps).cache;

/** Entries, bytes, hits, misses and evictions of the app's analytics cache so far. */
export const analyticsCacheStats = (deps: AppDeps): AnalyticsCacheStats => entryOf(deps).cache.stats();

/**
 * Answers from the cache or computes and stores. The key holds the endpoint, the organization
 * and every query parameter after defaults are applied, so an omitted default and the explicit
 * default share an entry and organizations never share one. Sets `x-cache: hit|miss`.
 * Results are stored and answered as serialized JSON, so a hit costs no serialization.
 */
export async function cached(
  deps: AppDeps,
  ctx: Context,
  key: { endpoint: string; organizationId: string; params: Record<string, unknown> },
  compute: () => Promise<unknown>,
): Promise<Buffer> {
  const entry = entryOf(deps);
  const id = JSON.stringify([key.endpoint, key.organizationId, sortedEntries(key.params)]);
  let json = entry.cache.get(id);
  if (json !== undefined) {
    ctx.set('x-cache', 'hit');
  } else {
    json = ownedUtf8(JSON.stringify(await compute()));
    entry.cache.set(id, json);
    ctx.set('x-cache', 'miss');
    logStats(deps, entry);
  }
  // Set before the route assigns the Buffer as body, so Koa keeps it (instead of octet-stream).
  ctx.type = 'application/json';
  return json;
}

/** One structured line with the cache's counters, at most once a minute (docs/analytics.md, "Cache"). */
function logStats(deps: AppDeps, entry: { cache: AnalyticsCache; loggedAt: number }): void {
  const now = deps.clock().getTime();
  if (now - entry.loggedAt < STATS_LOG_INTERVAL_MS) return;
  entry.loggedAt = now;
  deps.logger.info({ component: 'analytics-cache', ...entry.cache.stats() }, 'analytics cache');
}

const sortedEntries = (params: Record<string, unknown>) =>
  Object.keys(params)
    .sort()
    .map((name) => [name, params[name] ?? null]);
