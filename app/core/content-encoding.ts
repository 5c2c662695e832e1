import type { Context, Next } from 'koa';
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
 * 415 for an encoded body on a route that is not an ingestion route (contract: only the
 * ingestion routes inflate, after their key is checked). Mounted after authentication and before
 * the body is read (app/core/mount.ts), so nothing of such a body is ever inflated.
 */
export async function refuseEncodedBody(ctx: Context, next: Next): Promise<void> {
  if (contentEncodingOf(ctx) !== '') {
    throw new HttpError(415, 'Content-Encoding is accepted only by the ingestion routes; send the body unencoded');
  }
  await next();
}

/**
 * The gate of an ingestion route whose JSON body the parser reads: `gzip` and `deflate` (what the
 * parser inflates, bounded by the route's limit on the inflated bytes), 415 for any other encoding.
 * Mounted after the route's key or token is checked.
 */
export async function allowCompressedJson(ctx: Context, next: Next): Promise<void> {
  const encoding = contentEncodingOf(ctx);
  if (encoding !== '' && encoding !== 'gzip' && encoding !== 'deflate') {
    throw new HttpError(415, 'Content-Encoding must be gzip, deflate or absent');
  }
  await next();
}
