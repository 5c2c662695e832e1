import { Type } from '@sinclair/typebox';
import { findAgentIdsOfOrganization, type IngestedUsageEvent } from '../../sql/usage-ingest.ts';
import { storeIngestedEvents } from '../analytics/ingest/store.ts';
import { BinaryAnswer } from '../core/binary-answer.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody } from '../core/schemas.ts';
import { encodeTraceResponse } from './protobuf.ts';
import { OTLP_MAX_JSON_VALUES, OTLP_MAX_PROTOBUF_ELEMENTS, OTLP_MAX_SPANS, PROTOBUF, readOtlpRequest } from './request-body.ts';
import { candidateAgentIds, hasUsage, usageEventOf, type Rejection } from './usage-mapping.ts';

/**
 * Largest OTLP request body, before and after gzip (413 beyond). An SDK's batch processor sends at
 * most 512 spans per export (`maxExportBatchSize`); a generative-AI span with its attributes is
 * 0.5-2 KB in protobuf and about twice that in JSON, so 4 MiB holds a full batch of large spans in
 * protobuf (about 1 MiB) and in JSON (about 2 MiB) with room to spare.
 */
export const OTLP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

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
    auth: { apiKey: 'usage:write' },
    rateLimit: { limit: 600, windowMs: '1m', identifierType: 'apiKey', policyName: 'otlp-traces', source: 'project' },
    body: { kind: 'otlp', limitBytes: OTLP_BODY_LIMIT_BYTES, read: readOtlpRequest },
    responses: {
      200: { description: 'What was refused, in OTLP partial-success form', schema: PartialSuccess },
      400: {
        description: 'The body is not an ExportTraceServiceRequest, or holds too many spans, attributes or JSON values',
        schema: ErrorBody,
      },
    },
    handler: async ({ deps, auth, body }) => {
      const { organizationId } = auth;
      const usageSpans = body.spans.filter(hasUsage);
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
      return body.encoding === 'protobuf' ? new BinaryAnswer(PROTOBUF, encodeTraceResponse(partialSuccess)) : { partialSuccess };
    },
  }),
];
