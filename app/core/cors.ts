import cors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';

/** Headers a browser script may read on a cross-origin response (docs/interface.md §8's rate-limit headers). */
const EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After'];

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Cross-origin access for the configured origins only (`CORS_ORIGINS`), with `@koa/cors`.
 * Credentials are off: the API authenticates with a bearer token, never a cookie, so no
 * browser ever sends ambient credentials cross-origin. With no origin configured, nothing is
 * added and a browser refuses every cross-origin call.
 */
export function corsFor(origins: readonly string[]): Middleware[] {
  const allowed = new Set(origins);
  const middleware: Middleware[] = [];
  if (allowed.size > 0) {
    middleware.push(
      cors({
        origin: (ctx: Context) => (allowed.has(ctx.get('origin')) ? ctx.get('origin') : ''),
        credentials: false,
        exposeHeaders: EXPOSED_HEADERS,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        keepHeadersOnError: true,
      }),
    );
  }
  middleware.push(answerPreflight);
  return middleware;
}

/**
 * A preflight (OPTIONS with Access-Control-Request-Method) that `@koa/cors` did not answer
 * comes from an origin that is not allowed: 204 without CORS headers, so the browser refuses.
 * Either way a preflight ends here, before any route, limiter or body parser: it never uses a
 * request of a rate-limit budget.
 */
async function answerPreflight(ctx: Context, next: Next) {
  if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
    ctx.status = 204;
    return;
  }
  await next();
}
