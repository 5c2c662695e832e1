import type { Duration } from './duration.ts';
import { MemoryStore } from './memory-store.ts';
import { assertLimit, windowToMs } from './parse-window.ts';
import type { Store } from './store.ts';
import type { CheckOptions, CheckResult, Clock, HitResult } from './types.ts';

/** Options of {@link createSlidingWindowLimiter}. */
export interface SlidingWindowLimiterOptions {
  /** Where the sliding logs live. Share one store between limiters; keys keep them apart. */
  store: Store;
  /** Maximum requests per window: a positive integer. */
  limit: number;
  /** Window length: milliseconds as a positive integer, or a declaration such as `"500ms"`, `"30s"`, `"5m"`. */
  windowMs: number | Duration;
  /** Caller clock in epoch ms, passed to the store and used for `resetAt`. Default: `Date.now`. */
  now?: Clock;
}

/** A sliding-log limiter bound to one limit and window. */
export interface SlidingWindowLimiter {
  /** Maximum requests per window. */
  readonly limit: number;
  /** Window length in milliseconds. */
  readonly windowMs: number;
  /**
   * Atomically checks `key` and, when `cost` (default 1) fits under the limit, records it; a cost that does not
   * fit is denied whole, and `retryAfterMs` is the wait until it fits. Throws a `RangeError` for a cost that is
   * not an integer from 1 to `limit`.
   */
  check(key: string, options?: CheckOptions): Promise<CheckResult>;
  /**
   * Reports `key` without recording anything: `allowed` says whether a check of cost 1 would pass now,
   * `remaining` the units left, `resetAfterMs` when the oldest entry leaves (0 for an empty key).
   */
  peek(key: string): Promise<CheckResult>;
  /** Forgets every entry of `key` (the store's deny cache in this process included). */
  reset(key: string): Promise<void>;
  /**
   * Synchronous form of {@link SlidingWindowLimiter.check}, present only when the store answers in-process
   * (a {@link MemoryStore}): same result, no promise. The key is `scope + key`; pass a reused `scope`
   * string instead of concatenating, so the store can skip hashing a new string (see {@link MemoryStore.hitSync}).
   */
  readonly checkSync?: (key: string, scope?: string) => CheckResult;
}

/**
 * Creates a sliding-log limiter. Throws a `TypeError` at creation for an invalid `limit` or `window`.
 */
export function createSlidingWindowLimiter(options: SlidingWindowLimiterOptions): SlidingWindowLimiter {
  const { store } = options;
  const limit = assertLimit(options.limit);
  const windowMs = windowToMs(options.windowMs);
  const now = options.now ?? Date.now;
  const costOf = (checkOptions: CheckOptions | undefined): number => {
    const cost = checkOptions?.cost ?? 1;
    if (cost === 1) return 1;
    if (!Number.isInteger(cost) || cost < 1 || cost > limit) {
      throw new RangeError(`Invalid rate-limit cost ${String(cost)}: expected an integer from 1 to the limit ${limit}`);
    }
    return cost;
  };
  const reset = (key: string): Promise<void> => {
    if (store.reset === undefined) return Promise.reject(new TypeError('this rate-limit store cannot reset keys'));
    return store.reset(key);
  };
  if (store instanceof MemoryStore) {
    const checkSync = (key: string, scope?: string): CheckResult => {
      const callerNow = now();
      return toCheckResult(store.hitSync(key, windowMs, limit, callerNow, scope), limit, windowMs, callerNow);
    };
    return {
      limit,
      windowMs,
      checkSync,
      check(key, checkOptions) {
        if (checkOptions === undefined) return Promise.resolve(checkSync(key));
        try {
          const cost = costOf(checkOptions);
          const callerNow = now();
          return Promise.resolve(toCheckResult(store.hitSync(key, windowMs, limit, callerNow, '', cost), limit, windowMs, callerNow));
        } catch (error) {
          return Promise.reject(error as Error);
        }
      },
      peek(key) {
        const callerNow = now();
        return Promise.resolve(toPeekResult(store.hitSync(key, windowMs, limit, callerNow, '', 0), limit, windowMs, callerNow));
      },
      reset,
    };
  }
  return {
    limit,
    windowMs,
    check(key: string, checkOptions?: CheckOptions): Promise<CheckResult> {
      let cost;
      try {
        cost = costOf(checkOptions);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      const callerNow = now();
      const local = store.hitLocal?.(key, windowMs, limit, cost);
      if (local !== undefined) return Promise.resolve(toCheckResult(local, limit, windowMs, callerNow));
      return store.hit(key, windowMs, limit, callerNow, cost).then((hit) => toCheckResult(hit, limit, windowMs, callerNow));
    },
    peek(key: string): Promise<CheckResult> {
      const callerNow = now();
      return store.hit(key, windowMs, limit, callerNow, 0).then((hit) => toPeekResult(hit, limit, windowMs, callerNow));
    },
    reset,
  };
}

/**
 * Turns a store hit into a check result. Durations are computed in the store's clock
 * (`oldest + window - storeNow`, rounded up to whole ms) and `resetAt` is re-based on the caller's clock,
 * so a skewed app clock cannot shorten or lengthen a wait.
 */
export function toCheckResult(hit: HitResult, limit: number, windowMs: number, callerNow: number): CheckResult {
  const untilResetMs = Math.max(0, Math.ceil(hit.oldestMs + windowMs - hit.nowMs));
  const retryAfterMs = hit.retryAtMs === undefined ? untilResetMs : Math.ceil(hit.retryAtMs - hit.nowMs);
  return {
    allowed: hit.allowed,
    limit,
    remaining: Math.max(0, limit - hit.count),
    retryAfterMs: hit.allowed ? 0 : Math.max(1, retryAfterMs),
    resetAt: callerNow + untilResetMs,
    resetAfterMs: untilResetMs,
    degraded: hit.degraded === true,
  };
}

/** Turns a hit of cost 0 into a report: `allowed` when one more unit fits; nothing to wait for on an empty key. */
export function toPeekResult(hit: HitResult, limit: number, windowMs: number, callerNow: number): CheckResult {
  const untilResetMs = hit.count === 0 ? 0 : Math.max(0, Math.ceil(hit.oldestMs + windowMs - hit.nowMs));
  const allowed = hit.count < limit;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - hit.count),
    retryAfterMs: allowed ? 0 : Math.max(1, untilResetMs),
    resetAt: callerNow + untilResetMs,
    resetAfterMs: untilResetMs,
    degraded: hit.degraded === true,
  };
}
