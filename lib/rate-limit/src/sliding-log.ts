import type { HitResult } from './types.ts';

/** Compaction threshold: dead slots tolerated at the front before the array is shifted. */
const COMPACT_AFTER = 16;

/**
 * The in-memory sliding log of one key: a queue of entry timestamps (epoch ms).
 *
 * Invariants:
 * - `#times[#head..]` are the live entries, non-decreasing (a clock that steps back records at the newest time);
 * - slots before `#head` are dead and reclaimed in bulk, so a check is amortised O(1 + expired entries);
 * - at most `limit` entries are live, because denied hits are never recorded.
 */
export class SlidingLog {
  #times: number[];
  #head = 0;
  /** Epoch ms after which every entry has left the window, so the whole log can be dropped. */
  expiresAt: number;

  /** Creates a log holding its first entry (a literal one-slot array keeps idle keys small). */
  constructor(firstMs: number, windowMs: number) {
    this.#times = [firstMs];
    this.expiresAt = firstMs + windowMs;
  }

  /** Applies the {@link Store.hit} contract to this log (`cost` from 0 to `limit`). */
  hit(nowMs: number, windowMs: number, limit: number, cost = 1): HitResult {
    const times = this.#times;
    const cutoff = nowMs - windowMs;
    let head = this.#head;
    while (head < times.length && (times[head] as number) <= cutoff) head++;
    if (head === times.length) {
      times.length = 0;
      head = 0;
    } else if (head >= COMPACT_AFTER && head * 2 >= times.length) {
      times.splice(0, head);
      head = 0;
    }
    this.#head = head;

    const count = times.length - head;
    if (count + cost > limit) {
      const oldestMs = times[head] as number;
      if (cost <= 1) return { allowed: false, count, oldestMs, nowMs };
      // The entry whose departure leaves room for `cost`: index count - limit + cost - 1 among the live ones.
      return { allowed: false, count, oldestMs, nowMs, retryAtMs: (times[head + count - limit + cost - 1] as number) + windowMs };
    }
    if (cost === 0) return { allowed: true, count, oldestMs: count === 0 ? nowMs : (times[head] as number), nowMs };
    const newest = count === 0 ? nowMs : Math.max(nowMs, times[times.length - 1] as number);
    if (cost === 1) times.push(newest);
    else for (let i = 0; i < cost; i++) times.push(newest);
    this.expiresAt = newest + windowMs;
    return { allowed: true, count: count + cost, oldestMs: times[head] as number, nowMs };
  }
}
