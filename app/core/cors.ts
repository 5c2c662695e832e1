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
  const middleware: Middleware[] = [publicChannelCors];
  if (allowed.size > 0) {
    middleware.push(
      cors({
        origin: (ctx: Context) => (!ctx.path.startsWith(PUBLIC_CHANNEL_PREFIX) && allowed.has(ctx.get('origin')) ? ctx.get('origin') : ''),
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

/** The routes of agents' web channels (docs/channel.md): their CORS is decided per channel, not by `CORS_ORIGINS`. */
export const PUBLIC_CHANNEL_PREFIX = '/api/public/';

/**
 * CORS of the web channels' routes. A preflight carries no key or token, so nothing tells which
 * channel it is for: it is answered for any origin (`Authorization` and `Content-Type`, no
 * cookies). The request itself is let through with no CORS header: its route adds
 * `Access-Control-Allow-Origin` only for an origin the key's or the token's channel allows, and
 * answers any other 403 (app/channel/origins.ts). `CORS_ORIGINS` does not apply here.
 */
async function publicChannelCors(ctx: Context, next: Next) {
  if (!ctx.path.startsWith(PUBLIC_CHANNEL_PREFIX)) return next();
  if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
    ctx.status = 204;
    const origin = ctx.get('origin');
    if (origin !== '') {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      ctx.vary('Origin');
    }
    return;
  }
  await next();
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
