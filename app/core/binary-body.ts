import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { HttpError } from './errors.ts';
import type { BinaryBody } from './route.ts';

/**
 * Reads the whole body into `ctx.request.body` as a Buffer, at most `limitBytes` (413 beyond,
 * also when Content-Length announces more). The reader of a route declaring
 * `body: { kind: 'binary', ... }` (app/core/mount.ts), after the rate limiter like any body.
 * `mediaTypes` are documented only: the handler decides by the bytes, not the header.
 */
export function binaryBody(declaration: BinaryBody): Middleware {
  const tooLarge = () => new HttpError(413, `Payload too large (at most ${declaration.limitBytes} bytes)`);
  return async (ctx, next) => {
    // Already read: a read-only route run a second time after a lost database connection.
    if (Buffer.isBuffer(ctx.request.body)) return next();
    const announced = ctx.request.length;
    if (announced !== undefined && announced > declaration.limitBytes) throw tooLarge();
    try {
      ctx.request.body = await getRawBody(ctx.req, { limit: declaration.limitBytes });
    } catch (error) {
      if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
      throw new HttpError(400, 'The request body could not be read');
    }
    await next();
  };
}
