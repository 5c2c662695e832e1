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
  /** Set by a hit, cleared when eviction passes over the entry (second chance). */
  used?: boolean;
}

/**
 * Bounded cache of keys known to be full, evicting the least recently used (ADR 0053), in the CLOCK form
 * of LRU: a hit only sets a flag (no reordering on the hot path); when the cache is over `maxKeys`, eviction
 * walks from the oldest insertion, gives each flagged entry a second chance (flag cleared, moved to the end)
 * and drops the first unflagged one. Expired entries are dropped when looked up.
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
    if (localNow >= entry.untilLocal) {
      this.#entries.delete(key);
      return undefined;
    }
    if (entry.limit !== limit || entry.windowMs !== windowMs) return undefined;
    entry.used = true;
    this.hits++;
    return entry;
  }

  set(key: string, entry: DenyEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size <= this.#maxKeys) return;
    // Each entry is moved at most once (and the new one passed over once), so this ends within 2 x size steps;
    // the entry just added is never the one evicted.
    for (const [oldest, candidate] of this.#entries) {
      this.#entries.delete(oldest);
      if (candidate !== entry && candidate.used !== true) return;
      candidate.used = false;
      this.#entries.set(oldest, candidate);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
