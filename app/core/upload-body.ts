import { basename } from 'node:path';
import busboy from 'busboy';
import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import { HttpError, ValidationError } from './errors.ts';
import { isJsonRequest, readJson } from './json-body.ts';
import { NON_BLANK_LINE_PATTERN, StrictObject } from './schemas.ts';
import { compileValidator } from './validation.ts';

/**
 * An uploaded file as the reader of `body: { kind: 'multipart' }` leaves it: its name (no
 * directory part, one line), the media type its part declared (`null` for the JSON form, a text)
 * and its bytes. What the type may be is the handler's to decide.
 */
export type Upload = { name: string; mediaType: string | null; bytes: Uint8Array };

/** The JSON form of an upload: a text and its name. */
export const JsonUploadBody = StrictObject({
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: NON_BLANK_LINE_PATTERN,
    errorMessage: 'must be 1 to 200 characters on one line, not only spaces',
  }),
  text: Type.String(),
});

const validateJson = compileValidator('body', JsonUploadBody);

const tooLarge = (maxBytes: number) => new HttpError(413, `Payload too large (a file is at most ${maxBytes} bytes)`);

/** A file's name without any directory part, on one line, at most 200 characters; `document` when nothing is left. */
function nameOf(raw: string): string {
  const name = basename(raw.replace(/\\/g, '/'))
    .split('')
    // C0 controls and DEL go: a line break in a name would break the one-line rule.
    .filter((char) => char.charCodeAt(0) >= 0x20 && char !== '\u007f')
    .join('')
    .trim()
    .slice(0, 200);
  return name === '' ? 'document' : name;
}

/**
 * The reader of a route declaring `body: { kind: 'multipart', limitBytes }` (app/core/mount.ts),
 * mounted after authentication: nothing is read before the caller is known. Leaves an `Upload`
 * in `ctx.request.body`.
 */
export function uploadBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    // Already read: a route run a second time after a lost database connection.
    if (ctx.request.body === undefined) ctx.request.body = await readUpload(ctx, limitBytes);
    await next();
  };
}

/**
 * A `multipart/form-data` file in the field `file`, or JSON `{ name, text }`. At most `maxBytes`
 * of file (JSON text: in UTF-8); more is a 413, stopped while reading. Another content type is a
 * 415; a form without the file, or with more than one, a 400.
 */
async function readUpload(ctx: Context, maxBytes: number): Promise<Upload> {
  if (isJsonRequest(ctx)) {
    // JSON escapes can double the text's size (and \u escapes six-fold for control characters).
    const json = await readJson(ctx, maxBytes * 2 + 64 * 1024).catch((error: unknown) => {
      throw error instanceof HttpError && error.status === 413 ? tooLarge(maxBytes) : error;
    });
    const body = validateJson(json) as { name: string; text: string };
    const bytes = Buffer.from(body.text, 'utf8');
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return { name: nameOf(body.name), mediaType: null, bytes };
  }
  if (!ctx.request.is('multipart/form-data'))
    throw new HttpError(415, 'Content-Type must be multipart/form-data (a file in the field `file`) or application/json');
  const announced = ctx.request.length;
  // The form's own bytes (boundaries, part headers) come on top of the file.
  if (announced !== undefined && announced > maxBytes + 64 * 1024) throw tooLarge(maxBytes);
  return readMultipart(ctx, maxBytes);
}

function readMultipart(ctx: Context, maxBytes: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { files: 2, fileSize: maxBytes, fields: 10, fieldSize: 1024, parts: 12 } });
    } catch {
      reject(new ValidationError([{ path: [], message: 'The multipart body has no boundary' }]));
      return;
    }
    let file: Upload | undefined;
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
    };
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (!failure) chunks.push(chunk);
      });
      stream.on('limit', () => fail(tooLarge(maxBytes)));
      stream.on('end', () => {
        if (failure) return;
        if (field !== 'file')
          return fail(new ValidationError([{ path: [field], message: 'is not a field of this form: send the file in the field `file`' }]));
        if (file) return fail(new ValidationError([{ path: ['file'], message: 'must be one file' }]));
        file = { name: nameOf(info.filename ?? ''), mediaType: info.mimeType ?? '', bytes: Buffer.concat(chunks, size) };
      });
    });
    parser.on('filesLimit', () => fail(new ValidationError([{ path: ['file'], message: 'must be one file' }])));
    parser.on('partsLimit', () => fail(new ValidationError([{ path: [], message: 'The form has too many parts' }])));
    parser.on('error', () => fail(new ValidationError([{ path: [], message: 'The multipart body is malformed' }])));
    parser.on('close', () => {
      if (failure) reject(failure);
      else if (!file) reject(new ValidationError([{ path: ['file'], message: 'Required: the document, as a file in the field `file`' }]));
      else resolve(file);
    });
    ctx.req.on('aborted', () => fail(new ValidationError([{ path: [], message: 'The request body could not be read' }])));
    ctx.req.pipe(parser);
  });
}
