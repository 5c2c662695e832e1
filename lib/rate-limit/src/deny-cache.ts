/** A remembered "full" answer of the store: the log of one key, frozen until `untilLocal`. */
export interface DenyEntry {
  /** Local-clock time (ms) before which the log cannot change: its oldest entry leaves the window then. */
  readonly untilLocal: number;
  /** Store clock minus local clock, ms, estimated at the call that filled the entry (never too small). */
  readonly offsetMs: number;
  /** Live entries of the log (>= limit). */
  readonly count: number;
  /** The oldest live entry, store clock, epoch ms. */
  readonly oldestMs: number;
  /** Limit and window the answer was computed for; another declaration over the same key asks the store. */
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * Bounded LRU of keys known to be full (ADR 0053). Insertion order of a `Map` is the recency order:
 * a hit moves its key to the end, and the first key is evicted when the cache is over `maxKeys`.
 * Expired entries are dropped when looked up (and, being least recently used, evicted first).
 */
export class DenyCache {
  readonly #entries = new Map<string, DenyEntry>();
  readonly #maxKeys: number;
  /** Checks answered from the cache instead of the store. */
  hits = 0;

  constructor(maxKeys: number) {
    this.#maxKeys = maxKeys;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The live entry of `key` at local time `localNow`, for `limit`/`windowMs`; counts a hit. */
  get(key: string, localNow: number, limit: number, windowMs: number): DenyEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (localNow >= entry.untilLocal) return undefined;
    this.#entries.set(key, entry);
    if (entry.limit !== limit || entry.windowMs !== windowMs) return undefined;
    this.hits++;
    return entry;
  }

  set(key: string, entry: DenyEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxKeys) {
      const first = this.#entries.keys().next();
      if (first.done !== true) this.#entries.delete(first.value);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
