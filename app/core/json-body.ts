import { Transform } from 'node:stream';
import { createUnzip } from 'node:zlib';
import getRawBody from 'raw-body';
import type { Context, Middleware } from 'koa';
import { HttpError, ValidationError } from './errors.ts';
import { JsonNesting } from './json-nesting.ts';

declare module 'koa' {
  interface Request {
    /** The body as the route's reader left it (app/core/body-readers.ts): JSON, a Buffer, an `Upload`, OTLP spans. */
    body?: unknown;
  }
}

/** The one media type read as JSON (parameters such as `charset` aside); a body route answers any other 415. */
const JSON_TYPE = 'application/json';

/** RFC 8259 whitespace then `{` or `[`: only an object or an array is a body (strict mode). */
const STARTS_A_CONTAINER = /^[ \t\n\r]*[[{]/;

/**
 * Parses a JSON body into `ctx.request.body`. Mounted per route after
 * the rate limiter and after credentials (app/core/mount.ts). Bodies of other content types are
 * left unread (`{}`); a route with a body schema answers them 415.
 *
 * The body is read (inflated when gzip or deflate; the gates in content-encoding.ts decide which
 * routes may send those) up to `limitBytes` of text, 413 beyond, also when Content-Length
 * announces more; its nesting is followed in one linear pass as it arrives (`JsonNesting`:
 * deeper than `MAX_JSON_DEPTH` is 400 at once, before `JSON.parse` could spend time on it); then
 * it is parsed.
 * Anything unreadable or unparseable is 400 `Malformed JSON`; an object with an own `__proto__`
 * key is refused like malformed JSON.
 *
 * @param limitBytes largest accepted body in bytes (`BODY_LIMIT_BYTES`), after inflation.
 */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    // Already read (a read-only route run again after a lost database connection), or a method
    // whose body means nothing (app/core/client-errors.ts): left as it is.
    if (ctx.request.body !== undefined || (ctx as Context & { disableBodyParser?: boolean }).disableBodyParser) return next();
    if (!isJsonRequest(ctx)) {
      ctx.request.body = {};
      return next();
    }
    ctx.request.body = await readJson(ctx, limitBytes);
    await next();
  };
}

/** Is the request's Content-Type JSON (`application/json`, any parameters)? Every JSON body reader and check asks this. */
export function isJsonRequest(ctx: Context): boolean {
  return ctx.get('content-type').split(';')[0]!.trim().toLowerCase() === JSON_TYPE;
}

/**
 * The request's JSON body, read and parsed as `jsonBody` does (the one JSON reader: inflation,
 * `limitBytes`, nesting, strict parsing, no `__proto__` keys); an empty body is `{}`. Throws the
 * 413 and 400 errors described there.
 */
export async function readJson(ctx: Context, limitBytes: number): Promise<object> {
  return parseStrict(await readText(ctx, limitBytes));
}

/**
 * The body as UTF-8 text (a BOM dropped), at most `limitBytes` after inflation. Its nesting is
 * followed chunk by chunk as it arrives (`JsonNesting`): a body too deep is refused at that
 * chunk, neither inflated nor read further (left paused, as a body over the limit is).
 */
async function readText(ctx: Context, limitBytes: number): Promise<string> {
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  const declared = ctx.get('content-length');
  const inflating = encoding === 'gzip' || encoding === 'deflate';
  if (!inflating && encoding !== 'identity') throw malformed();
  const nesting = new JsonNesting();
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        nesting.feed(chunk);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
  // getRawBody hears the first error; any later one (a chunk still in flight) is already answered.
  checked.on('error', () => {});
  let unzip: Transform | undefined;
  if (inflating) {
    unzip = createUnzip();
    // pipe() forwards no errors: a broken inflation fails the read, and nothing is left unhandled.
    unzip.on('error', (error) => checked.destroy(error));
    ctx.req.pipe(unzip).pipe(checked);
  } else ctx.req.pipe(checked);
  try {
    return await getRawBody(checked, {
      limit: limitBytes,
      encoding: 'utf8',
      // The announced length is that of the encoded bytes: checked only when nothing inflates.
      ...(!inflating && declared !== '' ? { length: Number(declared) } : {}),
    });
  } catch (error) {
    if (unzip) {
      ctx.req.unpipe(unzip);
      unzip.destroy();
    } else ctx.req.unpipe(checked);
    if (error instanceof ValidationError) throw error;
    if ((error as { status?: number }).status === 413) throw new HttpError(413, 'Payload too large');
    throw malformed();
  }
}

/** An object or an array (`{}` for no text), else `Malformed JSON`. */
function parseStrict(text: string): object {
  if (text === '') return {};
  if (!STARTS_A_CONTAINER.test(text)) throw malformed();
  let value: object;
  try {
    value = JSON.parse(text) as object;
  } catch {
    throw malformed();
  }
  if (PROTO_KEY.test(text) && hasProtoKey(value)) throw malformed();
  return value;
}

/** A `"__proto__":` key, also with escapes (only then is the parsed value scanned). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** Does any object in `value` have an own `__proto__` key? Recursion is bounded by `MAX_JSON_DEPTH`. */
function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoKey);
}

const malformed = () => new ValidationError([{ path: [], message: 'Malformed JSON' }]);
