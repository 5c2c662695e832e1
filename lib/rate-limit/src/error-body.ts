// The default bodies of rate-limit answers.

/** Facts about a denial, passed to the `errorBody` factory. */
export interface DenialInfo {
  /** Seconds the client should wait (>= 1); equals the `Retry-After` header. */
  readonly retryAfterSeconds: number;
  /** Maximum requests per window. */
  readonly limit: number;
  /** Window length in milliseconds. */
  readonly windowMs: number;
}

/**
 * Body of a 429 when the declaration passes no `errorBody`: `{ statusCode: 429, message: 'Too Many Requests' }`.
 * Neutral on purpose: a service passes its own error envelope (codes, languages) as `errorBody`.
 */
export function defaultErrorBody(_denial: DenialInfo) {
  return { statusCode: 429, message: 'Too Many Requests' };
}

/** Body of the 503 sent under the `fail-closed` policy when the store is unavailable. */
export const UNAVAILABLE_BODY = Object.freeze({ statusCode: 503, message: 'Rate limiter unavailable' });
