import NodeCache from 'node-cache';
import type { Context } from 'koa';
import type { AppDeps } from '../core/deps.ts';

/** Lifetime of an analytics result (interface document, "Limits"). */
export const ANALYTICS_CACHE_TTL_SECONDS = 300;

/**
 * One cache per app instance: the routes are declared once for every app, so the cache hangs
 * off the app's deps object instead of a module global (two apps never share results).
 */
const caches = new WeakMap<AppDeps, NodeCache>();

export function analyticsCache(deps: AppDeps): NodeCache {
  let cache = caches.get(deps);
  if (!cache) {
    // useClones false: results are plain JSON that nobody mutates after they are stored.
    cache = new NodeCache({ stdTTL: ANALYTICS_CACHE_TTL_SECONDS, checkperiod: 60, useClones: false, maxKeys: 10_000 });
    caches.set(deps, cache);
  }
  return cache;
}

/**
 * Answers from the cache or computes and stores. The key holds the endpoint, the organization
 * and every query parameter after defaults are applied, so an omitted default and the explicit
 * default share an entry and organizations never share one. Sets `x-cache: hit|miss`.
 */
export async function cached<T>(
  deps: AppDeps,
  ctx: Context,
  key: { endpoint: string; organizationId: string; params: Record<string, unknown> },
  compute: () => Promise<T>,
): Promise<T> {
  const cache = analyticsCache(deps);
  const id = JSON.stringify([key.endpoint, key.organizationId, sortedEntries(key.params)]);
  const hit = cache.get<T>(id);
  if (hit !== undefined) {
    ctx.set('x-cache', 'hit');
    return hit;
  }
  const value = await compute();
  try {
    cache.set(id, value);
  } catch {
    // maxKeys reached: answer uncached rather than fail; entries expire within the TTL.
  }
  ctx.set('x-cache', 'miss');
  return value;
}

const sortedEntries = (params: Record<string, unknown>) =>
  Object.keys(params)
    .sort()
    .map((name) => [name, params[name] ?? null]);
