import { LRUCache } from 'lru-cache';

/** What the cache has done since it was made; the soak bench and the periodic log line read it. */
export type AnalyticsCacheStats = {
  /** Entries held now (expired ones count until they are touched or evicted). */
  entries: number;
  /** Bytes charged for those entries (see `entrySize`), never above `maxBytes`. */
  bytes: number;
  maxBytes: number;
  hits: number;
  misses: number;
  /** Entries dropped to make room (least recently used first); expiry is not an eviction. */
  evictions: number;
};

/**
 * Bytes an entry is charged beyond its JSON: the key string's header, the Buffer object and
 * lru-cache's slots (its index arrays and Map entry). An estimate on the high side, so the
 * budget bounds what the heap really holds.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/** An entry's charge: the serialized answer, its key (UTF-16 in V8's worst case) and the overhead. */
const entrySize = (json: Buffer, key: string) => json.byteLength + key.length * 2 + ENTRY_OVERHEAD_BYTES;

/**
 * Serialized analytics answers by key, bounded by bytes (least recently used evicted first) and
 * fresh for `ttlMs` on the given clock. Invariant: the charged bytes of the entries held never
 * exceed `maxBytes`, whatever the number of distinct queries; an answer larger than the whole
 * budget is answered but not kept. Expired entries are not purged by timers (a timer per entry
 * costs more than it saves); they are dropped when read and count against the budget until then.
 */
export class AnalyticsCache {
  readonly #lru: LRUCache<string, Buffer>;
  readonly #maxBytes: number;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(options: { maxBytes: number; ttlMs: number; now: () => number }) {
    this.#maxBytes = options.maxBytes;
    this.#lru = new LRUCache<string, Buffer>({
      maxSize: options.maxBytes,
      sizeCalculation: entrySize,
      ttl: options.ttlMs,
      perf: { now: options.now },
      // Read the clock on every freshness check (no 1 ms memo), so an injected clock is exact.
      ttlResolution: 0,
      dispose: (_value, _key, reason) => {
        if (reason === 'evict') this.#evictions += 1;
      },
    });
  }

  /** The fresh answer under `key`, counted as a hit, or undefined, counted as a miss. */
  get(key: string): Buffer | undefined {
    const json = this.#lru.get(key);
    if (json === undefined) this.#misses += 1;
    else this.#hits += 1;
    return json;
  }

  /** Keeps `json` under `key` for the TTL, evicting the least recently used entries to stay within budget. */
  set(key: string, json: Buffer): void {
    this.#lru.set(key, json);
  }

  /** Drops every entry (the benchmark's cold calls); the counters keep counting. */
  clear(): void {
    this.#lru.clear();
  }

  stats(): AnalyticsCacheStats {
    return {
      entries: this.#lru.size,
      bytes: this.#lru.calculatedSize,
      maxBytes: this.#maxBytes,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
    };
  }
}

/**
 * A copy of `text` as UTF-8 in a Buffer of its own. `Buffer.from(string)` slices answers under
 * 4 KiB out of a shared 8 KiB pool, so one small cached answer would keep a whole pool slab alive
 * and the budget would undercount what the cache holds by up to 8 KiB per entry.
 */
export function ownedUtf8(text: string): Buffer {
  const json = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  json.write(text, 'utf8');
  return json;
}
