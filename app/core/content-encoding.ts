import type { Context, Middleware, Next } from 'koa';
import { HttpError } from './errors.ts';

/**
 * The `Content-Encoding` of the body the service will read, lower-cased; '' for none: an absent
 * header, `identity`, no body (no Content-Length above 0 and no Transfer-Encoding), or a body
 * that is ignored (GET, HEAD, DELETE, OPTIONS: app/core/client-errors.ts).
 */
export function contentEncodingOf(ctx: Context): string {
  const length = ctx.get('content-length');
  const hasBody = ctx.get('transfer-encoding') !== '' || (length !== '' && length !== '0');
  if (!hasBody || (ctx as Context & { disableBodyParser?: boolean }).disableBodyParser) return '';
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  return encoding === 'identity' ? '' : encoding;
}

/**
 * The Content-Encoding gate of a route, chosen by the mount (app/core/mount.ts) from the body's
 * declared kind: only a route that takes an API key (an ingestion route, whose clients compress
 * by default) may send an encoded body, and only in what its kind's reader inflates, bounded by
 * the route's limit on the inflated bytes: `json`, gzip or deflate (app/core/json-body.ts);
 * `otlp`, gzip (app/otlp/request-body.ts). Every other route answers 415 to an encoded body.
 * Mounted after the key or token is checked and before the body is read, so nothing of a refused
 * body is ever inflated.
 */
export function encodingGate(inflates: readonly string[]): Middleware {
  if (inflates.length === 0) return refuseEncodedBody;
  const message = `Content-Encoding must be ${inflates.join(', ')} or absent`;
  return async function allowEncodings(ctx: Context, next: Next) {
    const encoding = contentEncodingOf(ctx);
    if (encoding !== '' && !inflates.includes(encoding)) throw new HttpError(415, message);
    await next();
  };
}

/** 415 for an encoded body on a route that is not an ingestion route. */
async function refuseEncodedBody(ctx: Context, next: Next): Promise<void> {
  if (contentEncodingOf(ctx) !== '') {
    throw new HttpError(415, 'Content-Encoding is accepted only by the ingestion routes; send the body unencoded');
  }
  await next();
}
