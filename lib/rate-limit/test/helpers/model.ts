// A plain sliding-log reference model and random operation sequences for the model test (fast-check).
import fc from 'fast-check';
import type { CheckResult } from '../../src/types.ts';

export type Operation =
  | { readonly op: 'check'; readonly key: number; readonly cost: number }
  | { readonly op: 'burst'; readonly keys: readonly number[] }
  | { readonly op: 'peek'; readonly key: number }
  | { readonly op: 'reset'; readonly key: number }
  | { readonly op: 'advance'; readonly ms: number };

/** What the model test compares: everything a caller sees except `degraded` (always false here). */
export type Answer = Pick<CheckResult, 'allowed' | 'remaining' | 'retryAfterMs' | 'resetAfterMs' | 'resetAt'>;

/** Limit, window and a sequence of operations on three keys; costs stay within the limit. */
// Windows of a second or more: Redis expires keys (PEXPIRE) in real time, and a whole sequence takes milliseconds.
export const scenario = fc
  .record({ limit: fc.integer({ min: 1, max: 6 }), windowMs: fc.integer({ min: 1_000, max: 5_000 }) })
  .chain(({ limit, windowMs }) =>
    fc.record({
      limit: fc.constant(limit),
      windowMs: fc.constant(windowMs),
      operations: fc.array(
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc.record({
              op: fc.constant('check' as const),
              key: fc.integer({ min: 0, max: 2 }),
              cost: fc.integer({ min: 1, max: limit }),
            }),
          },
          // Checks issued together (RedisStore sends them as one batch): answered as if in issue order.
          {
            weight: 2,
            arbitrary: fc.record({
              op: fc.constant('burst' as const),
              keys: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 12 }),
            }),
          },
          { weight: 2, arbitrary: fc.record({ op: fc.constant('peek' as const), key: fc.integer({ min: 0, max: 2 }) }) },
          { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const), key: fc.integer({ min: 0, max: 2 }) }) },
          // Steps of 0 and exactly the window are the boundary cases; the clock only moves forward.
          {
            weight: 4,
            arbitrary: fc.record({
              op: fc.constant('advance' as const),
              ms: fc.oneof(fc.constant(0), fc.constant(windowMs), fc.integer({ min: 1, max: windowMs * 2 })),
            }),
          },
        ),
        { minLength: 1, maxLength: 40 },
      ),
    }),
  );

/**
 * The sliding log as the README defines it, written as plainly as possible: entries are timestamps; an entry
 * whose age is >= the window is gone; a cost fits when live + cost <= limit; a denial waits until enough
 * entries have left for the cost to fit; the reset time is when the oldest live entry leaves.
 */
export class ReferenceLimiter {
  readonly #logs = new Map<number, number[]>();
  readonly limit: number;
  readonly windowMs: number;
  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  #live(key: number, now: number): number[] {
    const live = (this.#logs.get(key) ?? []).filter((t) => now - t < this.windowMs);
    this.#logs.set(key, live);
    return live;
  }

  check(key: number, cost: number, now: number): Answer {
    const live = this.#live(key, now);
    if (live.length + cost <= this.limit) {
      for (let i = 0; i < cost; i++) live.push(now);
      const reset = (live[0] as number) + this.windowMs - now;
      return { allowed: true, remaining: this.limit - live.length, retryAfterMs: 0, resetAfterMs: reset, resetAt: now + reset };
    }
    const mustLeave = live[live.length - this.limit + cost - 1] as number;
    const reset = (live[0] as number) + this.windowMs - now;
    return {
      allowed: false,
      remaining: Math.max(0, this.limit - live.length),
      retryAfterMs: mustLeave + this.windowMs - now,
      resetAfterMs: reset,
      resetAt: now + reset,
    };
  }

  peek(key: number, now: number): Answer {
    const live = this.#live(key, now);
    const reset = live.length === 0 ? 0 : (live[0] as number) + this.windowMs - now;
    const allowed = live.length < this.limit;
    return { allowed, remaining: this.limit - live.length, retryAfterMs: allowed ? 0 : reset, resetAfterMs: reset, resetAt: now + reset };
  }

  reset(key: number): void {
    this.#logs.delete(key);
  }
}

/** The fields of a check result the model predicts. */
export function answerOf(result: CheckResult): Answer {
  const { allowed, remaining, retryAfterMs, resetAfterMs, resetAt } = result;
  return { allowed, remaining, retryAfterMs, resetAfterMs, resetAt };
}
