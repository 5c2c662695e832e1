/** What one attribute holds once read: the scalar `AnyValue`s; arrays, maps and bytes are skipped. */
export type AttributeValue = string | number | boolean;
export type Attributes = ReadonlyMap<string, AttributeValue>;

/** A span as the usage mapping needs it; fields the request lacks or garbles are undefined. */
export type OtlpSpan = {
  /** 32 lowercase hex digits. */
  traceId: string | undefined;
  /** 16 lowercase hex digits. */
  spanId: string | undefined;
  startTimeUnixNano: bigint | undefined;
  endTimeUnixNano: bigint | undefined;
  attributes: Attributes;
  resourceAttributes: Attributes;
};

/** A request body that is not an ExportTraceServiceRequest at all (not an object, lists that are not lists). */
export class MalformedTraceRequest extends Error {
  override name = 'MalformedTraceRequest';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function listAt(parent: Json, field: string): unknown[] {
  const value = parent[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new MalformedTraceRequest(`${field} must be a list`);
  return value;
}

const HEX_ID = /^[0-9a-f]+$/;

/** A trace or span id as OTLP/JSON writes it: hex. */
function idOf(value: unknown, bytes: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const hex = value.toLowerCase();
  if (hex.length !== bytes * 2 || !HEX_ID.test(hex) || /^0+$/.test(hex)) return undefined;
  return hex;
}

/** fixed64 nanoseconds: a decimal string or a JSON number. */
function nanosOf(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  return undefined;
}

/** An `AnyValue`'s scalar: `intValue` as a number when it is a safe integer. */
function scalarOf(value: unknown): AttributeValue | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  const int = value.intValue;
  if (typeof int === 'number' && Number.isSafeInteger(int)) return int;
  if (typeof int === 'string' && /^-?\d{1,16}$/.test(int) && Number.isSafeInteger(Number(int))) return Number(int);
  if (typeof value.doubleValue === 'number' && Number.isFinite(value.doubleValue)) return value.doubleValue;
  return undefined;
}

function attributesOf(parent: unknown): Attributes {
  const attributes = new Map<string, AttributeValue>();
  if (!isObject(parent)) return attributes;
  for (const entry of listAt(parent, 'attributes')) {
    if (!isObject(entry) || typeof entry.key !== 'string') continue;
    const value = scalarOf(entry.value);
    if (value !== undefined) attributes.set(entry.key, value);
  }
  return attributes;
}

/**
 * The spans of an ExportTraceServiceRequest in OTLP/JSON (protobuf: protobuf.ts). Throws MalformedTraceRequest when the
 * request's structure is wrong; a span's own bad fields are left undefined for the mapping
 * to reject that span alone.
 */
export function spansOf(request: unknown): OtlpSpan[] {
  if (!isObject(request)) throw new MalformedTraceRequest('the body must be an ExportTraceServiceRequest object');
  const spans: OtlpSpan[] = [];
  for (const resourceSpans of listAt(request, 'resourceSpans')) {
    if (!isObject(resourceSpans)) throw new MalformedTraceRequest('resourceSpans must hold objects');
    const resourceAttributes = attributesOf(resourceSpans.resource);
    for (const scopeSpans of listAt(resourceSpans, 'scopeSpans')) {
      if (!isObject(scopeSpans)) throw new MalformedTraceRequest('scopeSpans must hold objects');
      for (const span of listAt(scopeSpans, 'spans')) {
        if (!isObject(span)) throw new MalformedTraceRequest('spans must hold objects');
        spans.push({
          traceId: idOf(span.traceId, 16),
          spanId: idOf(span.spanId, 8),
          startTimeUnixNano: nanosOf(span.startTimeUnixNano),
          endTimeUnixNano: nanosOf(span.endTimeUnixNano),
          attributes: attributesOf(span),
          resourceAttributes,
        });
      }
    }
  }
  return spans;
}
