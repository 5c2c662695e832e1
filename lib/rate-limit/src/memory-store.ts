import { SlidingLog } from './sliding-log.ts';
import type { Store } from './store.ts';
import type { Clock, HitResult } from './types.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** Clock used by {@link MemoryStore.sweep} when no time is given. Default: `Date.now`. */
  now?: Clock;
  /**
   * Period of the background sweep that drops fully expired keys, in milliseconds.
   * One `unref()`ed interval per store; `0` disables it (call {@link MemoryStore.sweep} yourself).
   * Default: `60_000` (1 minute).
   */
  sweepIntervalMs?: number;
}

/**
 * Exact in-process store: a `Map` from key to {@link SlidingLog}.
 *
 * Memory stays bounded: no timer per key; a key costs a few dozen bytes plus 8 bytes per live entry,
 * and keys whose newest entry has left the window are removed in bulk by the sweep.
 * Atomicity comes for free: a hit runs synchronously on the single JS thread.
 */
export class MemoryStore implements Store {
  readonly #logs = new Map<string, SlidingLog>();
  readonly #now: Clock;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    const period = options.sweepIntervalMs ?? 60_000;
    if (period > 0) {
      this.#timer = setInterval(() => this.sweep(), period);
      this.#timer.unref();
    }
  }

  /** Number of keys currently held (including expired keys not yet swept). */
  get size(): number {
    return this.#logs.size;
  }

  hit(key: string, windowMs: number, limit: number, nowMs: number = this.#now()): Promise<HitResult> {
    return Promise.resolve(this.hitSync(key, windowMs, limit, nowMs));
  }

  /** Synchronous form of {@link MemoryStore.hit}. */
  hitSync(key: string, windowMs: number, limit: number, nowMs: number = this.#now()): HitResult {
    const log = this.#logs.get(key);
    if (log !== undefined) return log.hit(nowMs, windowMs, limit);
    this.#logs.set(key, new SlidingLog(nowMs, windowMs));
    return { allowed: true, count: 1, oldestMs: nowMs, nowMs };
  }

  /** Drops every key whose entries have all left their window. Returns how many keys were dropped. */
  sweep(nowMs: number = this.#now()): number {
    let dropped = 0;
    for (const [key, log] of this.#logs) {
      if (log.expiresAt <= nowMs) {
        this.#logs.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** Stops the background sweep and forgets every key. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#logs.clear();
  }
}
