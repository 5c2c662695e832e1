import type { DenialInfo } from '@agents/rate-limit/koa';
import { CORE_RATE_LIMIT_EXCEEDED } from './errors.ts';

/**
 * The service's 429 body (docs/interface.md §1 envelope): `{ statusCode: 429, errorCode: 'CORE.RATE_LIMIT_EXCEEDED',
 * message: { en, es }, metadata: { retryAfterSeconds } }`, the wait equal to the `Retry-After` header.
 * Passed to the limiter as `errorBody` (the library's own default is a neutral body).
 */
export function rateLimitExceededBody({ retryAfterSeconds }: DenialInfo) {
  const one = retryAfterSeconds === 1;
  return {
    statusCode: CORE_RATE_LIMIT_EXCEEDED.status,
    errorCode: CORE_RATE_LIMIT_EXCEEDED.code,
    message: {
      en: `Too many requests. Try again in ${retryAfterSeconds} ${one ? 'second' : 'seconds'}.`,
      es: `Demasiadas solicitudes. Inténtalo de nuevo en ${retryAfterSeconds} ${one ? 'segundo' : 'segundos'}.`,
    },
    metadata: { retryAfterSeconds },
  };
}
