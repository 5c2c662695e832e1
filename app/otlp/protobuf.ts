import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

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

/**
 * Decodes an `ExportTraceServiceRequest` into a plain object shaped like OTLP/JSON, except that
 * ids arrive base64 (`bytes: String`); 64-bit integers are decimal strings, and each `AnyValue`
 * names its set field (`oneofs`), so both encodings go through one reader (spans.ts).
 */
export function decodeTraceRequest(bytes: Uint8Array): unknown {
  const { request } = traceService();
  let message;
  try {
    message = request.decode(bytes);
  } catch (error) {
    throw new UndecodableRequest(error instanceof Error ? error.message : 'not an ExportTraceServiceRequest');
  }
  return request.toObject(message, { longs: String, bytes: String, oneofs: true, defaults: false });
}

/** An `ExportTraceServiceResponse` with its `partial_success`. */
export function encodeTraceResponse(partialSuccess: { rejectedSpans: number; errorMessage: string }): Uint8Array {
  const { response } = traceService();
  return response.encode(response.fromObject({ partialSuccess })).finish();
}
