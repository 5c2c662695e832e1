import { gunzipSync } from 'node:zlib';
import type { Context } from 'koa';
import { HttpError } from '../core/errors.ts';

const tooLarge = (limitBytes: number) => new HttpError(413, `Payload too large: at most ${limitBytes} bytes`);

/**
 * The raw request body, at most `limitBytes` (413 beyond, checked on Content-Length first and on
 * the bytes as they arrive). `Content-Encoding: gzip` is inflated, bounded by the same limit.
 */
export async function readRawBody(ctx: Context, limitBytes: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  if (encoding !== 'gzip') throw new HttpError(415, 'Content-Encoding must be gzip or absent');
  try {
    return gunzipSync(body, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limitBytes);
    throw new HttpError(400, 'The body is not valid gzip');
  }
}
