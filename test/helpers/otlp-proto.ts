import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const PROTO_DIR = fileURLToPath(new URL('../../app/otlp/proto', import.meta.url));

/**
 * The trace service's messages as a full protobuf implementation (protobufjs, a dev dependency)
 * reads the vendored schema: the tests and the ingestion bench encode requests and decode answers
 * with it, so the service's own wire reader and writer (app/otlp/wire.ts) are checked against it.
 */
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
/** The request and response message types, loaded once. */
export const traceService = () => (messages ??= loadTraceService());
