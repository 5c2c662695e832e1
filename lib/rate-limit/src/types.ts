// Small shared types of @agents/rate-limit.

/** A clock returning epoch milliseconds (same contract as `Date.now`). */
export type Clock = () => number;

/** What a {@link Store} reports for one atomic check-and-record. */
export interface HitResult {
  /** True when the request was under the limit and has been recorded. */
  readonly allowed: boolean;
  /** Entries in the window after this hit (includes this request when allowed). Always >= 1. */
  readonly count: number;
  /** Timestamp (epoch ms, store clock) of the oldest entry still in the window. */
  readonly oldestMs: number;
  /** The store's notion of "now" (epoch ms) used for this hit; RedisStore returns the Redis server clock. */
  readonly nowMs: number;
  /**
   * Denials with a cost above 1 only: when (store clock, epoch ms) enough entries have left for the cost to fit.
   * Absent: `oldestMs + windowMs` (one unit frees).
   */
  readonly retryAtMs?: number;
  /** True when no store could answer and the request was let through (`fail-open`). */
  readonly degraded?: boolean;
}

/** Outcome of {@link SlidingWindowLimiter.check}. */
export interface CheckResult {
  /** Whether the request may proceed. */
  readonly allowed: boolean;
  /** Maximum requests per window. */
  readonly limit: number;
  /** Requests still allowed in the current window after this one (0 when denied). */
  readonly remaining: number;
  /** Milliseconds until a retry can succeed: `oldest + window - now`; 0 when allowed. */
  readonly retryAfterMs: number;
  /** Epoch ms (caller's clock) at which the oldest entry leaves the window, freeing one unit of capacity. */
  readonly resetAt: number;
  /** Milliseconds from this check until the oldest entry leaves the window (`resetAt` as a duration, store clock). */
  readonly resetAfterMs: number;
  /** True when the store was unavailable and the `fail-open` policy let the request through unmetered. */
  readonly degraded: boolean;
}

/** Options of one {@link SlidingWindowLimiter.check}. */
export interface CheckOptions {
  /**
   * Units this request consumes: a positive integer, at most the limit (a larger cost throws a `RangeError`,
   * it could never fit). The request is allowed whole or denied whole. Default: `1`.
   */
  readonly cost?: number;
}

/** What to do when the store errors or times out. */
export type StoreErrorPolicy = 'fallback-memory' | 'fail-open' | 'fail-closed';

/** Structured logger (pino-compatible argument order: context object first, message second). */
export interface Logger {
  warn(context: Record<string, unknown>, message: string): void;
  info(context: Record<string, unknown>, message: string): void;
}
