import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Context } from 'koa';
import { contentEncodingOf } from '../core/content-encoding.ts';
import { HttpError } from '../core/errors.ts';
import { countJsonTraceRequest, TooManyJsonValues } from './json-count.ts';
import { decodeTraceSpans, TooManyElements, TooManySpans, UndecodableRequest } from './protobuf.ts';
import { MalformedTraceRequest, spansOf, type OtlpSpan } from './spans.ts';

/**
 * Most spans in one request (400 beyond, counted before any span is built): twenty default SDK
 * batches, and more spans than 4 MiB holds at realistic sizes (about 400 bytes a span at least).
 */
export const OTLP_MAX_SPANS = 10_000;

/**
 * Most elements the protobuf reader builds in one request (400 beyond, counted before any is
 * built): resource spans, scope spans, spans, and span and resource attributes. 10,000 spans of
 * 20 attributes each fit; what the reader does not use (events, links, nested attribute values)
 * is jumped over and not counted.
 */
export const OTLP_MAX_PROTOBUF_ELEMENTS = 250_000;

/**
 * Most JSON values (objects, arrays, strings, numbers, literals) in an OTLP/JSON request (400
 * beyond, counted before `JSON.parse`): what parsing costs is about one value, however small. A
 * generative-AI span with 30 attributes is about 135 values, so this holds some 700 such spans,
 * above a full SDK batch. Protobuf, the exporters' default, counts its elements instead
 * (`OTLP_MAX_PROTOBUF_ELEMENTS`): its reader jumps over nested values without building them.
 */
export const OTLP_MAX_JSON_VALUES = 100_000;

export const PROTOBUF = 'application/x-protobuf';

/** A decoded ExportTraceServiceRequest: its spans, and the encoding the answer must use. */
export type OtlpRequest = { encoding: 'protobuf' | 'json'; spans: OtlpSpan[] };

const tooLarge = (limitBytes: number) => new HttpError(413, `Payload too large: at most ${limitBytes} bytes, also after inflation`);

/**
 * The reader of the OTLP route, declared with it (`body: { kind: 'otlp', limitBytes, read }`) and
 * run by the mount (app/core/body-readers.ts) after the key is checked and after the gzip gate:
 * 415 for a type other than application/x-protobuf or application/json, then the bytes
 * (`readRawBody`), then the spans, counted before any is built (400 beyond the limits above or
 * for a body that is no ExportTraceServiceRequest).
 */
export async function readOtlpRequest(ctx: Context, limitBytes: number): Promise<OtlpRequest> {
  const protobuf = ctx.request.is(PROTOBUF) === PROTOBUF;
  if (!protobuf && ctx.request.is('application/json') !== 'application/json') {
    throw new HttpError(415, 'Content-Type must be application/x-protobuf or application/json');
  }
  const bytes = await readRawBody(ctx, limitBytes);
  return { encoding: protobuf ? 'protobuf' : 'json', spans: decodeSpans(bytes, protobuf) };
}

function decodeSpans(bytes: Buffer, protobuf: boolean): OtlpSpan[] {
  try {
    if (protobuf) return decodeTraceSpans(bytes, { maxSpans: OTLP_MAX_SPANS, maxElements: OTLP_MAX_PROTOBUF_ELEMENTS });
    // OTLP/JSON is counted before it is parsed (`countJsonTraceRequest`).
    countJsonTraceRequest(bytes, { maxSpans: OTLP_MAX_SPANS, maxValues: OTLP_MAX_JSON_VALUES });
    return spansOf(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    if (error instanceof TooManySpans) {
      throw new HttpError(400, `Too many spans: at most ${OTLP_MAX_SPANS} per request; export smaller batches`);
    }
    if (error instanceof TooManyElements) {
      throw new HttpError(
        400,
        `Too many elements: at most ${OTLP_MAX_PROTOBUF_ELEMENTS} spans and attributes per request; export smaller batches`,
      );
    }
    if (error instanceof TooManyJsonValues) {
      throw new HttpError(400, `Too many JSON values: at most ${OTLP_MAX_JSON_VALUES} per request; export smaller batches or use protobuf`);
    }
    if (error instanceof UndecodableRequest || error instanceof MalformedTraceRequest || error instanceof SyntaxError) {
      throw new HttpError(400, `Not an ExportTraceServiceRequest: ${error.message}`);
    }
    throw error;
  }
}

const inflate = promisify(gunzip);

/**
 * The raw request body, at most `limitBytes` (413 beyond, checked on Content-Length first and on
 * the bytes as they arrive). `Content-Encoding: gzip` (the only one the route's gate lets through,
 * app/core/content-encoding.ts) is inflated off the event loop (zlib's thread pool), bounded by
 * the same limit on the inflated bytes: inflation stops there, so a gzip bomb costs at most
 * `limitBytes` of output.
 */
async function readRawBody(ctx: Context, limitBytes: number): Promise<Buffer> {
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
  if (contentEncodingOf(ctx) === '') return body;
  try {
    // 256 KiB chunks: a sixteenth of the callbacks into JavaScript of zlib's default 16 KiB.
    return await inflate(body, { maxOutputLength: limitBytes, chunkSize: 256 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limitBytes);
    throw new HttpError(400, 'The body is not valid gzip');
  }
}
