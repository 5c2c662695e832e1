import type { AppDeps } from '../core/deps.ts';
import type { ToolListing } from './list-tools.ts';

/** Most servers whose tools one app keeps; the least recently stored goes first. */
const MAX_ENTRIES = 1_000;
/**
 * Most bytes of tools one app keeps (the sum of `ToolListing.bytes`, UTF-8 of each tool's
 * fields): with listings of at most 4 MiB, eight of the largest fit; ordinary ones by thousands.
 */
export const TOOLS_CACHE_MAX_BYTES = 32 * 1024 * 1024;

type Entry = { expiresAt: number; listing: ToolListing };

/**
 * Listings kept until `expiresAt`, bounded by entries and by bytes: storing one evicts the
 * oldest stored until both bounds hold; a listing larger than the byte budget is not kept.
 * (A Map iterates in insertion order, and a re-stored key is deleted first, so the first key is
 * always the oldest.)
 */
export class ToolsCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  readonly maxBytes: number;
  readonly maxEntries: number;

  constructor(maxBytes = TOOLS_CACHE_MAX_BYTES, maxEntries = MAX_ENTRIES) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): ToolListing | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > now) return entry.listing;
    if (entry) this.#delete(key, entry);
    return undefined;
  }

  set(key: string, listing: ToolListing, expiresAt: number): void {
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    if (listing.bytes > this.maxBytes) return;
    this.#entries.set(key, { expiresAt, listing });
    this.#bytes += listing.bytes;
    while (this.#bytes > this.maxBytes || this.#entries.size > this.maxEntries) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#delete(oldest, entry);
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.listing.bytes;
  }
}

/**
 * The tools each server listed, kept `toolsCacheTtlMs` per app (one cache per AppDeps, so tests'
 * apps do not share). Keyed by agency, server and the server's `updated_at`: an edit (URL,
 * credentials) starts afresh. Permissions are never cached; they are joined at every answer.
 */
const caches = new WeakMap<AppDeps, ToolsCache>();

type ServerKey = { agencyId: string; id: string; updatedAt: string };
const keyOf = (server: ServerKey) => `${server.agencyId}/${server.id}/${server.updatedAt}`;

export function cachedTools(deps: AppDeps, server: ServerKey): ToolListing | undefined {
  return caches.get(deps)?.get(keyOf(server), deps.clock().getTime());
}

export function cacheTools(deps: AppDeps, server: ServerKey, listing: ToolListing): void {
  if (deps.config.mcpClient.toolsCacheTtlMs === 0) return;
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new ToolsCache()));
  cache.set(keyOf(server), listing, deps.clock().getTime() + deps.config.mcpClient.toolsCacheTtlMs);
}
