import type { Duration } from './duration.ts';
import { MemoryStore } from './memory-store.ts';
import { assertLimit, windowToMs } from './parse-window.ts';
import type { Store } from './store.ts';
import type { CheckResult, Clock, HitResult } from './types.ts';

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
  /** Atomically checks `key` and, when under the limit, records the request. */
  check(key: string): Promise<CheckResult>;
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
  if (store instanceof MemoryStore) {
    const checkSync = (key: string, scope?: string): CheckResult => {
      const callerNow = now();
      return toCheckResult(store.hitSync(key, windowMs, limit, callerNow, scope), limit, windowMs, callerNow);
    };
    return { limit, windowMs, checkSync, check: (key) => Promise.resolve(checkSync(key)) };
  }
  return {
    limit,
    windowMs,
    check(key: string): Promise<CheckResult> {
      const callerNow = now();
      return store.hit(key, windowMs, limit, callerNow).then((hit) => toCheckResult(hit, limit, windowMs, callerNow));
    },
  };
}

/**
 * Turns a store hit into a check result. Durations are computed in the store's clock
 * (`oldest + window - storeNow`, rounded up to whole ms) and `resetAt` is re-based on the caller's clock,
 * so a skewed app clock cannot shorten or lengthen a wait.
 */
export function toCheckResult(hit: HitResult, limit: number, windowMs: number, callerNow: number): CheckResult {
  const untilResetMs = Math.max(0, Math.ceil(hit.oldestMs + windowMs - hit.nowMs));
  return {
    allowed: hit.allowed,
    limit,
    remaining: Math.max(0, limit - hit.count),
    retryAfterMs: hit.allowed ? 0 : Math.max(1, untilResetMs),
    resetAt: callerNow + untilResetMs,
    resetAfterMs: untilResetMs,
    degraded: hit.degraded === true,
  };
}
