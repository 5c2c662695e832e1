import type { Middleware } from 'koa';
import { DASHBOARD_PATH } from './serve.ts';

/** The API's interactive docs (app/docs/routes.ts, under `/api`). */
const API_DOCS_PATH = '/api/docs';

/**
 * The service's front doors, for a person who types its address: `GET /` leads to the console and
 * `GET /api` (or `/api/`) to the API's interactive docs, each a 302 whose body names the place for
 * a client that does not follow it (`Redirecting to /dashboard.`). Other methods and paths go on.
 */
export function entryRedirects(): Middleware {
  return async (ctx, next) => {
    const to = ctx.path === '/' ? DASHBOARD_PATH : ctx.path === '/api' || ctx.path === '/api/' ? API_DOCS_PATH : undefined;
    if (to === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.redirect(to);
  };
}
