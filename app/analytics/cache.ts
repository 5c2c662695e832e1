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
 * Results are stored and answered as serialized JSON, so a hit costs no serialization.
 */
export async function cached(
  deps: AppDeps,
  ctx: Context,
  key: { endpoint: string; organizationId: string; params: Record<string, unknown> },
  compute: () => Promise<unknown>,
): Promise<Buffer> {
  const cache = analyticsCache(deps);
  const id = JSON.stringify([key.endpoint, key.organizationId, sortedEntries(key.params)]);
  let json = cache.get<Buffer>(id);
  if (json !== undefined) {
    ctx.set('x-cache', 'hit');
  } else {
    json = Buffer.from(JSON.stringify(await compute()), 'utf8');
    try {
      cache.set(id, json);
    } catch {
      // maxKeys reached: answer uncached rather than fail; entries expire within the TTL.
    }
    ctx.set('x-cache', 'miss');
  }
  // Set before the route assigns the Buffer as body, so Koa keeps it (instead of octet-stream).
  ctx.type = 'application/json';
  return json;
}

const sortedEntries = (params: Record<string, unknown>) =>
  Object.keys(params)
    .sort()
    .map((name) => [name, params[name] ?? null]);
