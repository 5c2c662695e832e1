import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { HttpError } from './errors.ts';

/** What a route that takes a non-JSON body (an image) declares: its media types and size bound. */
export type BinaryBody = {
  /** Media types documented for the body; the handler decides by the bytes, not the header. */
  mediaTypes: readonly string[];
  /** Largest accepted body in bytes; larger ones get 413 without being read further. */
  maxBytes: number;
  description: string;
};

/**
 * Reads the whole body into `ctx.request.body` as a Buffer, at most `maxBytes` (413 beyond,
 * also when Content-Length announces more). Mounted instead of the JSON parser on routes that
 * declare `binaryBody` (app/core/mount.ts), after the rate limiter like any body.
 */
export function binaryBody(declaration: BinaryBody): Middleware {
  const tooLarge = () => new HttpError(413, `Payload too large (at most ${declaration.maxBytes} bytes)`);
  return async (ctx, next) => {
    // Already read: a read-only route run a second time after a lost database connection.
    if (Buffer.isBuffer(ctx.request.body)) return next();
    const announced = ctx.request.length;
    if (announced !== undefined && announced > declaration.maxBytes) throw tooLarge();
    try {
      ctx.request.body = await getRawBody(ctx.req, { limit: declaration.maxBytes });
    } catch (error) {
      if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
      throw new HttpError(400, 'The request body could not be read');
    }
    await next();
  };
}
