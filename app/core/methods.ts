import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { HttpError } from './errors.ts';

/**
 * Answers a request that no route took, when its path is a known one: OPTIONS gets 204 with
 * `Allow`; any other method, TRACE and WebDAV's included, gets 405 `{ statusCode, message }`
 * with `Allow` (docs/interface.md §9). An unknown path stays a 404. Replaces @koa/router's
 * `allowedMethods`, whose 501 for methods outside its list became a 500 and whose 405 had
 * no `Allow` once thrown. Methods Node's parser does not know never get here: the server's
 * `clientError` handler answers them (see client-errors.ts).
 */
export function methodNotAllowed(router: Router) {
  return async function answerMethodNotAllowed(ctx: Context, next: Next): Promise<void> {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const matched = router.match(ctx.path, ctx.method);
    if (matched.route) return;
    const methods = new Set<string>();
    for (const layer of matched.path) for (const method of layer.methods) methods.add(method);
    if (methods.size === 0) return;
    methods.add('OPTIONS');
    const allow = [...methods].sort().join(', ');
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new HttpError(405, `Method ${ctx.method} is not allowed here; allowed: ${allow}`);
  };
}
