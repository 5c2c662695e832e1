import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

/**
 * One structured line per request, written when the response is done. The query string is
 * left out on purpose: OAuth callbacks carry codes and state there.
 */
export function requestLog(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const auth = ctx.state.auth as { sub?: string } | undefined;
      const status = ctx.status;
      const line = {
        requestId: ctx.state.requestId as string,
        method: ctx.method,
        path: ctx.path,
        route: (ctx as Context & { _matchedRoute?: string })._matchedRoute,
        status,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        ip: ctx.ip,
        userId: auth?.sub,
      };
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
    }
  };
}
