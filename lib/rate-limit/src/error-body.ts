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

/** Body of a 429: `{ statusCode, errorCode: 'CORE.RATE_LIMIT_EXCEEDED', message: { en, es }, metadata }`. */
export function defaultErrorBody({ retryAfterSeconds }: DenialInfo) {
  const one = retryAfterSeconds === 1;
  return {
    statusCode: 429,
    errorCode: 'CORE.RATE_LIMIT_EXCEEDED',
    message: {
      en: `Too many requests. Try again in ${retryAfterSeconds} ${one ? 'second' : 'seconds'}.`,
      es: `Demasiadas solicitudes. Inténtalo de nuevo en ${retryAfterSeconds} ${one ? 'segundo' : 'segundos'}.`,
    },
    metadata: { retryAfterSeconds },
  };
}

/** Body of the 503 sent under the `fail-closed` policy when the store is unavailable. */
export const UNAVAILABLE_BODY = Object.freeze({ statusCode: 503, message: 'Rate limiter unavailable' });
