import type { Attributes, AttributeValue, OtlpSpan } from './spans.ts';
import { FIXED64, LEN, VARINT, WireReader, WireWriter } from './wire.ts';

export { UndecodableRequest } from './wire.ts';

/** A request with more spans than one request may carry (400). */
export class TooManySpans extends Error {
  override name = 'TooManySpans';
  readonly limit: number;
  constructor(limit: number) {
    super(`more than ${limit} spans in one request`);
    this.limit = limit;
  }
}

// Field numbers of the OTLP messages read and written here (opentelemetry/proto, vendored in proto/).
const REQUEST_RESOURCE_SPANS = 1;
const RESOURCE_SPANS_RESOURCE = 1;
const RESOURCE_SPANS_SCOPE_SPANS = 2;
const RESOURCE_ATTRIBUTES = 1;
const SCOPE_SPANS_SPANS = 2;
const SPAN_TRACE_ID = 1;
const SPAN_SPAN_ID = 2;
const SPAN_START_TIME = 7;
const SPAN_END_TIME = 8;
const SPAN_ATTRIBUTES = 9;
const KEY_VALUE_KEY = 1;
const KEY_VALUE_VALUE = 2;
const ANY_STRING = 1;
const ANY_BOOL = 2;
const ANY_INT = 3;
const ANY_DOUBLE = 4;
const RESPONSE_PARTIAL_SUCCESS = 1;
const PARTIAL_SUCCESS_REJECTED_SPANS = 1;
const PARTIAL_SUCCESS_ERROR_MESSAGE = 2;

/** A request with more elements (resource spans, scope spans, spans, attributes) than one request may carry (400). */
export class TooManyElements extends Error {
  override name = 'TooManyElements';
  readonly limit: number;
  constructor(limit: number) {
    super(`more than ${limit} elements (resource spans, scope spans, spans and attributes) in one request`);
    this.limit = limit;
  }
}

/** What one protobuf request may hold: spans, and everything the reader builds (spans and attributes). */
export type TraceLimits = { maxSpans: number; maxElements: number };

const UNLIMITED: TraceLimits = { maxSpans: Number.MAX_SAFE_INTEGER, maxElements: Number.MAX_SAFE_INTEGER };

const isField = (reader: WireReader, field: number) => reader.field === field && reader.wireType === LEN;

/**
 * Counts what `bytes` holds by jumping over each element's bytes (nothing is built): throws
 * `TooManySpans` at the first span over `maxSpans` and `TooManyElements` at the first element
 * (resource spans, scope spans, span, span or resource attribute) over `maxElements`.
 */
export function countTraceElements(bytes: Uint8Array, limits: TraceLimits): void {
  let spans = 0;
  let elements = 0;
  const element = () => {
    if (++elements > limits.maxElements) throw new TooManyElements(limits.maxElements);
  };
  const request = new WireReader(bytes);
  while (request.next()) {
    if (!isField(request, REQUEST_RESOURCE_SPANS)) {
      request.skip();
      continue;
    }
    element();
    const resourceSpans = request.message();
    while (resourceSpans.next()) {
      if (isField(resourceSpans, RESOURCE_SPANS_RESOURCE)) {
        const resource = resourceSpans.message();
        while (resource.next()) {
          if (isField(resource, RESOURCE_ATTRIBUTES)) element();
          resource.skip();
        }
      } else if (isField(resourceSpans, RESOURCE_SPANS_SCOPE_SPANS)) {
        element();
        const scopeSpans = resourceSpans.message();
        while (scopeSpans.next()) {
          if (!isField(scopeSpans, SCOPE_SPANS_SPANS)) {
            scopeSpans.skip();
            continue;
          }
          if (++spans > limits.maxSpans) throw new TooManySpans(limits.maxSpans);
          element();
          const span = scopeSpans.message();
          while (span.next()) {
            if (isField(span, SPAN_ATTRIBUTES)) element();
            span.skip();
          }
        }
      } else resourceSpans.skip();
    }
  }
}

/**
 * The spans of an `ExportTraceServiceRequest` in protobuf, read straight off the wire. What it
 * holds is counted first (`countTraceElements`: nothing is built for a request over its limits);
 * then each span keeps only what the usage mapping reads (ids, times, scalar attributes), and
 * everything else (events, links, nested attribute values) is jumped over without being decoded,
 * so the cost is bounded by the counted elements, not by what a body nests. A field sent with its
 * default value counts as sent (times: defined).
 */
export function decodeTraceSpans(bytes: Uint8Array, limits: TraceLimits = UNLIMITED): OtlpSpan[] {
  countTraceElements(bytes, limits);
  const spans: OtlpSpan[] = [];
  const request = new WireReader(bytes);
  while (request.next()) {
    if (!isField(request, REQUEST_RESOURCE_SPANS)) {
      request.skip();
      continue;
    }
    const resourceSpans = request.message();
    const resourceAttributes = new Map<string, AttributeValue>();
    const scopes: WireReader[] = [];
    while (resourceSpans.next()) {
      if (isField(resourceSpans, RESOURCE_SPANS_RESOURCE)) {
        const resource = resourceSpans.message();
        while (resource.next()) {
          if (isField(resource, RESOURCE_ATTRIBUTES)) readAttribute(resource.message(), resourceAttributes);
          else resource.skip();
        }
      } else if (isField(resourceSpans, RESOURCE_SPANS_SCOPE_SPANS)) scopes.push(resourceSpans.message());
      else resourceSpans.skip();
    }
    for (const scopeSpans of scopes) {
      while (scopeSpans.next()) {
        if (isField(scopeSpans, SCOPE_SPANS_SPANS)) spans.push(spanOf(scopeSpans.message(), resourceAttributes));
        else scopeSpans.skip();
      }
    }
  }
  return spans;
}

function spanOf(reader: WireReader, resourceAttributes: Attributes): OtlpSpan {
  let traceId: Uint8Array | undefined;
  let spanId: Uint8Array | undefined;
  let startTimeUnixNano: bigint | undefined;
  let endTimeUnixNano: bigint | undefined;
  const attributes = new Map<string, AttributeValue>();
  while (reader.next()) {
    const { field, wireType } = reader;
    if (field === SPAN_TRACE_ID && wireType === LEN) traceId = reader.bytes();
    else if (field === SPAN_SPAN_ID && wireType === LEN) spanId = reader.bytes();
    else if ((field === SPAN_START_TIME || field === SPAN_END_TIME) && wireType === FIXED64) {
      reader.fixed64();
      const nanos = (BigInt(reader.high) << 32n) | BigInt(reader.low);
      if (field === SPAN_START_TIME) startTimeUnixNano = nanos;
      else endTimeUnixNano = nanos;
    } else if (field === SPAN_ATTRIBUTES && wireType === LEN) readAttribute(reader.message(), attributes);
    else reader.skip();
  }
  return { traceId: idOf(traceId, 16), spanId: idOf(spanId, 8), startTimeUnixNano, endTimeUnixNano, attributes, resourceAttributes };
}

/** Lowercase hex of an id of `length` bytes; undefined for another length or all zeros (invalid in OTLP). */
function idOf(bytes: Uint8Array | undefined, length: number): string | undefined {
  if (!bytes || bytes.length !== length || bytes.every((byte) => byte === 0)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * One `KeyValue` into `attributes` when its `AnyValue` is a scalar (the last one set, as a oneof
 * reads): arrays, maps and bytes are skipped unread; an `intValue` only when it is a safe integer.
 */
function readAttribute(keyValue: WireReader, attributes: Map<string, AttributeValue>): void {
  let key: string | undefined;
  let value: AttributeValue | undefined;
  while (keyValue.next()) {
    if (keyValue.field === KEY_VALUE_KEY && keyValue.wireType === LEN) key = keyValue.string();
    else if (keyValue.field === KEY_VALUE_VALUE && keyValue.wireType === LEN) value = scalarOf(keyValue.message());
    else keyValue.skip();
  }
  if (value !== undefined) attributes.set(key ?? '', value);
}

function scalarOf(anyValue: WireReader): AttributeValue | undefined {
  let value: AttributeValue | undefined;
  while (anyValue.next()) {
    const { field, wireType } = anyValue;
    if (field === ANY_STRING && wireType === LEN) value = anyValue.string();
    else if (field === ANY_BOOL && wireType === VARINT) {
      anyValue.varint64();
      value = anyValue.low !== 0 || anyValue.high !== 0;
    } else if (field === ANY_INT && wireType === VARINT) {
      anyValue.varint64();
      const number = (anyValue.high | 0) * 2 ** 32 + anyValue.low;
      value = Number.isSafeInteger(number) ? number : undefined;
    } else if (field === ANY_DOUBLE && wireType === FIXED64) {
      const double = anyValue.double();
      value = Number.isFinite(double) ? double : undefined;
    } else {
      // Another member of the oneof (array, map, bytes) replaces a scalar read before it.
      if (field >= 5 && field <= 7) value = undefined;
      anyValue.skip();
    }
  }
  return value;
}

/** An `ExportTraceServiceResponse` with its `partial_success` (set even when nothing was rejected). */
export function encodeTraceResponse(partialSuccess: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  return new WireWriter()
    .message(RESPONSE_PARTIAL_SUCCESS, (inner) =>
      inner
        .varint(PARTIAL_SUCCESS_REJECTED_SPANS, partialSuccess.rejectedSpans)
        .string(PARTIAL_SUCCESS_ERROR_MESSAGE, partialSuccess.errorMessage),
    )
    .finish();
}
