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
 * Exact in-process store: sliding logs in a `Map` of scopes, each a `Map` from id to {@link SlidingLog}.
 *
 * A log's key is `scope + id`. The two levels exist so that a caller holding the parts (the Koa adapter:
 * a per-route scope and the client IP) never builds a key string per call: a concatenated string must be
 * flattened and hashed on every lookup, while reused strings keep their hash. {@link MemoryStore.hit} puts
 * the whole key in the `''` scope, which is held apart so that such a hit costs one `Map` lookup (through the
 * limiter over 100 000 keys: 1.5-7.4% more checks/s in five interleaved runs, where two copies of the previous
 * code differed by -1.5 to +4.1%).
 *
 * Memory stays bounded: no timer per key; a key costs a few dozen bytes plus 8 bytes per live entry,
 * and keys whose newest entry has left the window are removed in bulk by the sweep.
 * Atomicity comes for free: a hit runs synchronously on the single JS thread.
 */
export class MemoryStore implements Store {
  /** The `''` scope, held outside the map (and never dropped) so that a whole-key hit costs one lookup, not two. */
  readonly #root = new Map<string, SlidingLog>();
  readonly #scopes = new Map<string, Map<string, SlidingLog>>();
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
    let size = this.#root.size;
    for (const logs of this.#scopes.values()) size += logs.size;
    return size;
  }

  hit(key: string, windowMs: number, limit: number, nowMs: number = this.#now(), cost = 1): Promise<HitResult> {
    return Promise.resolve(this.hitSync(key, windowMs, limit, nowMs, '', cost));
  }

  /**
   * Synchronous form of {@link MemoryStore.hit} for the key `scope + id`.
   * @param scope - first part of the key, best a string instance reused across calls. Default: `''`.
   * @param cost - entries to record, 0 (peek) to `limit`. Default: `1`.
   */
  hitSync(id: string, windowMs: number, limit: number, nowMs: number = this.#now(), scope = '', cost = 1): HitResult {
    let logs = scope === '' ? this.#root : this.#scopes.get(scope);
    if (logs === undefined) {
      logs = new Map();
      this.#scopes.set(scope, logs);
    }
    const log = logs.get(id);
    if (log !== undefined) return log.hit(nowMs, windowMs, limit, cost);
    if (cost === 0) return { allowed: true, count: 0, oldestMs: nowMs, nowMs };
    const created = new SlidingLog(nowMs, windowMs);
    logs.set(id, created);
    return cost === 1 ? { allowed: true, count: 1, oldestMs: nowMs, nowMs } : created.hit(nowMs, windowMs, limit, cost - 1);
  }

  /** Forgets every entry of the key `scope + id`. */
  resetSync(id: string, scope = ''): void {
    if (scope === '') {
      this.#root.delete(id);
      return;
    }
    const logs = this.#scopes.get(scope);
    if (logs === undefined) return;
    logs.delete(id);
    if (logs.size === 0) this.#scopes.delete(scope);
  }

  reset(key: string): Promise<void> {
    this.resetSync(key);
    return Promise.resolve();
  }

  /** Drops every key whose entries have all left their window. Returns how many keys were dropped. */
  sweep(nowMs: number = this.#now()): number {
    let dropped = dropExpired(this.#root, nowMs);
    for (const [scope, logs] of this.#scopes) {
      dropped += dropExpired(logs, nowMs);
      if (logs.size === 0) this.#scopes.delete(scope);
    }
    return dropped;
  }

  /** Stops the background sweep and forgets every key. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#root.clear();
    this.#scopes.clear();
  }
}

/** Removes the logs whose entries have all left their window; returns how many. */
function dropExpired(logs: Map<string, SlidingLog>, nowMs: number): number {
  let dropped = 0;
  for (const [id, log] of logs) {
    if (log.expiresAt <= nowMs) {
      logs.delete(id);
      dropped++;
    }
  }
  return dropped;
}
