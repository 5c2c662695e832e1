/** Retry schedule of the outbox worker. */
export type BackoffOptions = {
  /** Delay before the second attempt, in milliseconds. Default 5 000. */
  baseDelayMs?: number;
  /** Upper bound of any delay, in milliseconds. Default 3 600 000 (one hour). */
  maxDelayMs?: number;
};

/**
 * Exponential backoff with "equal jitter": after attempt n (1-based) the nominal delay is
 * base * 2^(n-1), capped; the wait is half of it plus a uniformly random part of the other
 * half, so workers that failed together do not retry together, and no wait is shorter than
 * half the nominal one (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
 */
export function retryDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseDelayMs ?? 5_000;
  const cap = options.maxDelayMs ?? 3_600_000;
  const nominal = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(nominal / 2 + random() * (nominal / 2));
}
