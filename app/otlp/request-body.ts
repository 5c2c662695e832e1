import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Context } from 'koa';
import { contentEncodingOf } from '../core/content-encoding.ts';
import { HttpError } from '../core/errors.ts';

const inflate = promisify(gunzip);

const tooLarge = (limitBytes: number) => new HttpError(413, `Payload too large: at most ${limitBytes} bytes, also after inflation`);

/**
 * The raw request body, at most `limitBytes` (413 beyond, checked on Content-Length first and on
 * the bytes as they arrive). `Content-Encoding: gzip` is inflated off the event loop (zlib's
 * thread pool), bounded by the same limit on the inflated bytes: inflation stops there, so a
 * gzip bomb costs at most `limitBytes` of output. Called by the handler, after the key is checked.
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
  const encoding = contentEncodingOf(ctx);
  if (encoding === '') return body;
  if (encoding !== 'gzip') throw new HttpError(415, 'Content-Encoding must be gzip or absent');
  try {
    // 256 KiB chunks: a sixteenth of the callbacks into JavaScript of zlib's default 16 KiB.
    return await inflate(body, { maxOutputLength: limitBytes, chunkSize: 256 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limitBytes);
    throw new HttpError(400, 'The body is not valid gzip');
  }
}
