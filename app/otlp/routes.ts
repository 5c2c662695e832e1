import { Type } from '@sinclair/typebox';
import { findAgentIdsOfOrganization, type IngestedUsageEvent } from '../../sql/usage-ingest.ts';
import { storeIngestedEvents } from '../analytics/ingest/store.ts';
import { usageCallerOf } from '../core/api-key-auth.ts';
import { BinaryAnswer } from '../core/binary-answer.ts';
import { HttpError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody } from '../core/schemas.ts';
import { countJsonTraceRequest, TooManyJsonValues } from './json-count.ts';
import { decodeTraceSpans, encodeTraceResponse, TooManyElements, TooManySpans, UndecodableRequest } from './protobuf.ts';
import { readRawBody } from './request-body.ts';
import { MalformedTraceRequest, spansOf } from './spans.ts';
import { candidateAgentIds, hasUsage, usageEventOf, type Rejection } from './usage-mapping.ts';

/**
 * Largest OTLP request body, before and after gzip (413 beyond). An SDK's batch processor sends at
 * most 512 spans per export (`maxExportBatchSize`); a generative-AI span with its attributes is
 * 0.5-2 KB in protobuf and about twice that in JSON, so 4 MiB holds a full batch of large spans in
 * protobuf (about 1 MiB) and in JSON (about 2 MiB) with room to spare.
 */
export const OTLP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

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

const PROTOBUF = 'application/x-protobuf';

const PartialSuccess = Type.Object({
  partialSuccess: Type.Object({
    rejectedSpans: Type.Integer({ description: 'Usage spans that could not become usage events' }),
    errorMessage: Type.String({ description: 'Why, for the first of them; empty when none was rejected' }),
  }),
});

/** Usage spans over OTLP/HTTP (docs/analytics.md, "OTLP mapping"). */
export const otlpRoutes = [
  defineRoute({
    method: 'POST',
    path: '/otlp/v1/traces',
    summary: 'OTLP/HTTP trace export: spans with gen_ai usage become usage events',
    description:
      'An API key with usage:write. Body: an ExportTraceServiceRequest as application/x-protobuf or ' +
      `application/json (optionally gzip), at most ${OTLP_BODY_LIMIT_BYTES} bytes before and after inflation ` +
      `(413 above), at most ${OTLP_MAX_SPANS} spans, ${OTLP_MAX_PROTOBUF_ELEMENTS} spans and attributes in protobuf and ${OTLP_MAX_JSON_VALUES} values in JSON (400 above). Each span with ` +
      'gen_ai.usage.input_tokens or gen_ai.usage.output_tokens becomes one usage event, idempotent on ' +
      '(traceId, spanId); other spans are ignored. The answer is an ExportTraceServiceResponse in the ' +
      "request's encoding (JSON shown here).",
    tags: ['analytics'],
    auth: 'jwt',
    apiKey: { scope: 'usage:write', keyOnly: true },
    rateLimit: { limit: 600, windowMs: '1m', identifierType: 'apiKey', policyName: 'otlp-traces', source: 'project' },
    body: { limitBytes: OTLP_BODY_LIMIT_BYTES, raw: true },
    responses: {
      200: { description: 'What was refused, in OTLP partial-success form', schema: PartialSuccess },
      400: {
        description: 'The body is not an ExportTraceServiceRequest, or holds too many spans, attributes or JSON values',
        schema: ErrorBody,
      },
      413: { description: `The body is over ${OTLP_BODY_LIMIT_BYTES} bytes, before or after inflation`, schema: ErrorBody },
      415: { description: 'Neither application/x-protobuf nor application/json, or a Content-Encoding other than gzip', schema: ErrorBody },
    },
    handler: async ({ deps, ctx }) => {
      const protobuf = ctx.request.is(PROTOBUF) === PROTOBUF;
      if (!protobuf && ctx.request.is('application/json') !== 'application/json') {
        throw new HttpError(415, 'Content-Type must be application/x-protobuf or application/json');
      }
      const body = await readRawBody(ctx, OTLP_BODY_LIMIT_BYTES);
      let spans;
      try {
        spans = protobuf
          ? decodeTraceSpans(body, { maxSpans: OTLP_MAX_SPANS, maxElements: OTLP_MAX_PROTOBUF_ELEMENTS })
          : jsonSpansOf(body);
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
          throw new HttpError(
            400,
            `Too many JSON values: at most ${OTLP_MAX_JSON_VALUES} per request; export smaller batches or use protobuf`,
          );
        }
        if (error instanceof UndecodableRequest || error instanceof MalformedTraceRequest || error instanceof SyntaxError) {
          throw new HttpError(400, `Not an ExportTraceServiceRequest: ${error.message}`);
        }
        throw error;
      }
      const { organizationId } = usageCallerOf(ctx);
      const usageSpans = spans.filter(hasUsage);
      const agentIds = await findAgentIdsOfOrganization(deps.db, organizationId, candidateAgentIds(usageSpans));
      const events: IngestedUsageEvent[] = [];
      const rejections: Rejection[] = [];
      for (const span of usageSpans) {
        const mapped = usageEventOf(span, organizationId, agentIds);
        if ('reason' in mapped) rejections.push(mapped);
        else events.push(mapped);
      }
      await storeIngestedEvents(
        deps,
        organizationId,
        events.map((event) => event.ingestKey),
        (index) => events[index]!,
      );
      const partialSuccess = {
        rejectedSpans: rejections.length,
        errorMessage: rejections.length ? `${rejections.length} usage span(s) rejected; first: ${rejections[0]!.reason}` : '',
      };
      return protobuf ? new BinaryAnswer(PROTOBUF, encodeTraceResponse(partialSuccess)) : { partialSuccess };
    },
  }),
];

/** The spans of an OTLP/JSON body, counted before it is parsed (`countJsonTraceRequest`). */
function jsonSpansOf(body: Buffer) {
  countJsonTraceRequest(body, { maxSpans: OTLP_MAX_SPANS, maxValues: OTLP_MAX_JSON_VALUES });
  return spansOf(JSON.parse(body.toString('utf8')));
}
