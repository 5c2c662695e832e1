import test from 'ava';
import { rateLimitExceededBody } from '../../app/core/rate-limit-body.ts';

test('a one-second wait is spelled "1 second" / "1 segundo" in the 429 body', (t) => {
  t.deepEqual(rateLimitExceededBody({ retryAfterSeconds: 1, limit: 3, windowMs: 60_000 }), {
    statusCode: 429,
    errorCode: 'CORE.RATE_LIMIT_EXCEEDED',
    message: {
      en: 'Too many requests. Try again in 1 second.',
      es: 'Demasiadas solicitudes. Inténtalo de nuevo en 1 segundo.',
    },
    metadata: { retryAfterSeconds: 1 },
  });
});

test('a longer wait is spelled in plural and repeated in metadata.retryAfterSeconds', (t) => {
  const body = rateLimitExceededBody({ retryAfterSeconds: 42, limit: 3, windowMs: 60_000 });
  t.deepEqual(body.message, {
    en: 'Too many requests. Try again in 42 seconds.',
    es: 'Demasiadas solicitudes. Inténtalo de nuevo en 42 segundos.',
  });
  t.deepEqual(body.metadata, { retryAfterSeconds: 42 });
});
