// Error classes thrown by the library.

/** A store call took longer than the configured timeout. Counts as a store error. */
export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`rate-limit store did not answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The store failed and the `fail-closed` policy refuses to guess. The Koa adapter maps it to 503. */
export class RateLimiterUnavailableError extends Error {
  override readonly name = 'RateLimiterUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super('rate limiter unavailable', options);
  }
}
