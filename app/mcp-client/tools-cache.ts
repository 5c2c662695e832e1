import type { AppDeps } from '../core/deps.ts';
import type { DiscoveredTool } from './list-tools.ts';

/** Most servers whose tools one app keeps; the oldest entry goes first. */
const MAX_ENTRIES = 1_000;

type Entry = { expiresAt: number; tools: DiscoveredTool[] };

/**
 * The tools each server listed, kept `toolsCacheTtlMs` per app (one Map per AppDeps, so tests'
 * apps do not share). Keyed by agency, server and the server's `updated_at`: an edit (URL,
 * credentials) starts afresh. Permissions are never cached; they are joined at every answer.
 */
const caches = new WeakMap<AppDeps, Map<string, Entry>>();

const keyOf = (server: { agencyId: string; id: string; updatedAt: string }) => `${server.agencyId}/${server.id}/${server.updatedAt}`;

export function cachedTools(deps: AppDeps, server: { agencyId: string; id: string; updatedAt: string }): DiscoveredTool[] | undefined {
  const entry = caches.get(deps)?.get(keyOf(server));
  return entry && entry.expiresAt > deps.clock().getTime() ? entry.tools : undefined;
}

export function cacheTools(deps: AppDeps, server: { agencyId: string; id: string; updatedAt: string }, tools: DiscoveredTool[]): void {
  if (deps.config.mcpClient.toolsCacheTtlMs === 0) return;
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new Map()));
  const key = keyOf(server);
  cache.delete(key);
  cache.set(key, { expiresAt: deps.clock().getTime() + deps.config.mcpClient.toolsCacheTtlMs, tools });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
}
