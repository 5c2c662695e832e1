import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { Attributes, AttributeValue, OtlpSpan } from './spans.ts';

const PROTO_DIR = fileURLToPath(new URL('./proto', import.meta.url));

/** The trace service's messages, loaded once from the vendored schema (proto/README.md). */
function loadTraceService() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  return {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
  };
}

let messages: ReturnType<typeof loadTraceService> | undefined;
/** The request and response message types (also used by the ingestion benchmark to encode requests). */
export const traceService = () => (messages ??= loadTraceService());

/** Thrown for bytes that are not an ExportTraceServiceRequest. */
export class UndecodableRequest extends Error {
  override name = 'UndecodableRequest';
}

/** A 64-bit integer as protobufjs decodes it when `long` is installed (a number otherwise). */
type Long = { low: number; high: number };
type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | Long; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue | null };
type Span = {
  traceId: Uint8Array;
  spanId: Uint8Array;
  startTimeUnixNano: number | Long;
  endTimeUnixNano: number | Long;
  attributes: KeyValue[];
};
type Request = { resourceSpans: Array<{ resource?: { attributes: KeyValue[] } | null; scopeSpans: Array<{ spans: Span[] }> }> };

/**
 * The spans of an `ExportTraceServiceRequest` in protobuf, read straight off the decoded message:
 * converting it to a plain object first (`toObject`: 64-bit values through decimal strings, ids
 * through base64) cost more than the decoding. A field the message lacks stays undefined; in a
 * decoded message, fields that were sent are own properties and absent ones are the prototype's
 * defaults, hence `Object.hasOwn`.
 */
export function decodeTraceSpans(bytes: Uint8Array): OtlpSpan[] {
  const { request } = traceService();
  let message: Request;
  try {
    message = request.decode(bytes) as unknown as Request;
  } catch (error) {
    throw new UndecodableRequest(error instanceof Error ? error.message : 'not an ExportTraceServiceRequest');
  }
  const spans: OtlpSpan[] = [];
  for (const resourceSpans of message.resourceSpans) {
    const resourceAttributes = attributesOf(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        spans.push({
          traceId: idOf(span.traceId, 16),
          spanId: idOf(span.spanId, 8),
          startTimeUnixNano: Object.hasOwn(span, 'startTimeUnixNano') ? uint64Of(span.startTimeUnixNano) : undefined,
          endTimeUnixNano: Object.hasOwn(span, 'endTimeUnixNano') ? uint64Of(span.endTimeUnixNano) : undefined,
          attributes: attributesOf(span.attributes),
          resourceAttributes,
        });
      }
    }
  }
  return spans;
}

/** Lowercase hex of an id of `length` bytes; undefined for another length or all zeros (invalid in OTLP). */
function idOf(bytes: Uint8Array | undefined, length: number): string | undefined {
  if (!bytes || bytes.length !== length || bytes.every((byte) => byte === 0)) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const uint64Of = (value: number | Long): bigint =>
  typeof value === 'number' ? BigInt(value) : (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);

/** The scalar `AnyValue`s (arrays, maps and bytes skipped); an `intValue` only when it is a safe integer. */
function attributesOf(list: readonly KeyValue[]): Attributes {
  const attributes = new Map<string, AttributeValue>();
  for (const { key, value } of list) {
    if (!value) continue;
    if (Object.hasOwn(value, 'stringValue')) attributes.set(key, value.stringValue!);
    else if (Object.hasOwn(value, 'boolValue')) attributes.set(key, value.boolValue!);
    else if (Object.hasOwn(value, 'intValue')) {
      const int = value.intValue!;
      const number = typeof int === 'number' ? int : int.high * 2 ** 32 + (int.low >>> 0);
      if (Number.isSafeInteger(number)) attributes.set(key, number);
    } else if (Object.hasOwn(value, 'doubleValue') && Number.isFinite(value.doubleValue)) attributes.set(key, value.doubleValue!);
  }
  return attributes;
}

/** An `ExportTraceServiceResponse` with its `partial_success`. */
export function encodeTraceResponse(partialSuccess: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  const { response } = traceService();
  return response.encode(response.fromObject({ partialSuccess })).finish();
}
