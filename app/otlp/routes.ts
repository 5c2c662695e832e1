import { Type } from '@sinclair/typebox';
import { findAgentIdsOfOrganization, type IngestedUsageEvent } from '../../sql/usage-ingest.ts';
import { storeIngestedEvents } from '../analytics/ingest/store.ts';
import { usageCallerOf } from '../core/api-key-auth.ts';
import { BinaryAnswer } from '../core/binary-answer.ts';
import { HttpError } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody } from '../core/schemas.ts';
import { decodeTraceSpans, encodeTraceResponse, UndecodableRequest } from './protobuf.ts';
import { readRawBody } from './request-body.ts';
import { MalformedTraceRequest, spansOf } from './spans.ts';
import { candidateAgentIds, hasUsage, usageEventOf, type Rejection } from './usage-mapping.ts';

/**
 * Largest OTLP request body (after gzip). An SDK's batch processor sends at most 512 spans per
 * export; a generative-AI span with its attributes is 0.5-2 KB in protobuf and about twice that in
 * JSON, so 8 MiB leaves room for a full batch of large spans in either encoding.
 */
export const OTLP_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

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
      `application/json (optionally gzip), at most ${OTLP_BODY_LIMIT_BYTES} bytes. Each span with ` +
      'gen_ai.usage.input_tokens or gen_ai.usage.output_tokens becomes one usage event, idempotent on ' +
      '(traceId, spanId); other spans are ignored. The answer is an ExportTraceServiceResponse in the ' +
      "request's encoding (JSON shown here).",
    tags: ['analytics'],
    auth: 'jwt',
    apiKey: { scope: 'usage:write', keyOnly: true },
    body: { limitBytes: OTLP_BODY_LIMIT_BYTES, raw: true },
    responses: {
      200: { description: 'What was refused, in OTLP partial-success form', schema: PartialSuccess },
      400: { description: 'The body is not an ExportTraceServiceRequest', schema: ErrorBody },
      415: { description: 'Neither application/x-protobuf nor application/json', schema: ErrorBody },
    },
    handler: async ({ deps, ctx }) => {
      const protobuf = ctx.request.is(PROTOBUF) === PROTOBUF;
      if (!protobuf && ctx.request.is('application/json') !== 'application/json') {
        throw new HttpError(415, 'Content-Type must be application/x-protobuf or application/json');
      }
      const body = await readRawBody(ctx, OTLP_BODY_LIMIT_BYTES);
      let spans;
      try {
        spans = protobuf ? decodeTraceSpans(body) : spansOf(JSON.parse(body.toString('utf8')));
      } catch (error) {
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
