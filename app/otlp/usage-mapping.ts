import { uuidv7 } from 'uuidv7';
import type { IngestedUsageEvent } from '../../sql/usage-ingest.ts';
import { ACTION_TYPES, USAGE_SOURCES, type ActionType, type UsageSource } from '../../sql/usage-window.ts';
import { isStorableInstant, MAX_EVENT_TOKENS } from '../analytics/ingest/events.ts';
import type { Attributes, AttributeValue, OtlpSpan } from './spans.ts';
import { isUuid } from '../core/schemas.ts';

/** The OpenTelemetry GenAI semantic conventions' attributes this mapping reads, and the service's own two. */
export const GEN_AI = {
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  responseModel: 'gen_ai.response.model',
  requestModel: 'gen_ai.request.model',
  agentId: 'gen_ai.agent.id',
  source: 'agents.usage.source',
  action: 'agents.usage.action',
} as const;

/**
 * Where the cached input tokens may stand, in order: the GenAI convention's attribute, then the two
 * the AI SDK's telemetry (`experimental_telemetry`) writes instead (its model-call spans carry
 * `gen_ai.usage.input_tokens` as the total, cached included, but the cached part only as `ai.usage.*`).
 */
export const CACHE_READ_KEYS = [
  GEN_AI.cacheReadTokens,
  'ai.usage.inputTokenDetails.cacheReadTokens',
  'ai.usage.cachedInputTokens',
] as const;

const NANOS_PER_MS = 1_000_000n;
const MAX_LATENCY_MS = 2_147_483_647n;

/** A span carries usage when it has either token count; every other span is ignored. */
export const hasUsage = (span: OtlpSpan) => span.attributes.has(GEN_AI.inputTokens) || span.attributes.has(GEN_AI.outputTokens);

/** A usage span that cannot become an event, and why (counted in `partialSuccess`). */
export type Rejection = { reason: string };

/** The span's attribute, else the resource's (for `agents.usage.*`, which a whole process may set). */
const spanOrResource = (span: OtlpSpan, key: string): AttributeValue | undefined =>
  span.attributes.get(key) ?? span.resourceAttributes.get(key);

function tokens(attributes: Attributes, key: string): number | Rejection {
  const value = attributes.get(key) ?? 0;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_EVENT_TOKENS
    ? value
    : { reason: `${key} must be an integer from 0 to ${MAX_EVENT_TOKENS}` };
}

function oneOf<T extends string>(span: OtlpSpan, key: string, values: readonly T[], fallback: T): T | Rejection {
  const value = spanOrResource(span, key) ?? fallback;
  return values.includes(value as T) ? (value as T) : { reason: `${key} must be one of: ${values.join(', ')}` };
}

const isRejection = (value: unknown): value is Rejection => typeof value === 'object' && value !== null && 'reason' in value;

/**
 * One usage span as a usage event of `organizationId` (docs/analytics.md, "OTLP mapping"):
 * model from `gen_ai.response.model`, else `gen_ai.request.model`; cached tokens from the first
 * of `CACHE_READ_KEYS` the span has; input tokens less the cached ones (never below 0); latency
 * the span's duration; the span's end as `createdAt`; idempotent on (traceId, spanId). `agentIds` are the organization's agents: another `gen_ai.agent.id` is dropped.
 */
export function usageEventOf(span: OtlpSpan, organizationId: string, agentIds: ReadonlySet<string>): IngestedUsageEvent | Rejection {
  if (span.traceId === undefined || span.spanId === undefined)
    return { reason: 'traceId and spanId must be non-zero ids of 16 and 8 bytes' };
  const model = span.attributes.get(GEN_AI.responseModel) ?? span.attributes.get(GEN_AI.requestModel);
  if (typeof model !== 'string' || model.length < 1 || model.length > 200) {
    return { reason: `${GEN_AI.responseModel} or ${GEN_AI.requestModel} must name the model (1 to 200 characters)` };
  }
  const input = tokens(span.attributes, GEN_AI.inputTokens);
  const output = tokens(span.attributes, GEN_AI.outputTokens);
  const cacheRead = tokens(span.attributes, CACHE_READ_KEYS.find((key) => span.attributes.has(key)) ?? GEN_AI.cacheReadTokens);
  const source = oneOf<UsageSource>(span, GEN_AI.source, USAGE_SOURCES, 'system');
  const actionType = oneOf<ActionType>(span, GEN_AI.action, ACTION_TYPES, 'user_interaction');
  for (const field of [input, output, cacheRead, source, actionType]) if (isRejection(field)) return field;
  const { startTimeUnixNano: start, endTimeUnixNano: end } = span;
  if (start === undefined || end === undefined || end < start)
    return { reason: 'the span needs start and end times, the end not before the start' };
  const endMs = Number(end / NANOS_PER_MS);
  if (!isStorableInstant(endMs)) return { reason: 'the span must end between the years 2000 and 9999' };
  const latency = (end - start) / NANOS_PER_MS;
  const agent = span.attributes.get(GEN_AI.agentId);
  const agentId = isUuid(agent) && agentIds.has(agent.toLowerCase()) ? agent.toLowerCase() : null;
  return {
    id: uuidv7(),
    organizationId,
    ingestKey: `otlp:${span.traceId}:${span.spanId}`,
    agentId,
    userId: null,
    modelId: model,
    actionType: actionType as ActionType,
    source: source as UsageSource,
    inputTokens: Math.max(0, (input as number) - (cacheRead as number)),
    outputTokens: output as number,
    cacheReadTokens: cacheRead as number,
    costUsd: null,
    latencyMs: Number(latency > MAX_LATENCY_MS ? MAX_LATENCY_MS : latency),
    createdAt: new Date(endMs).toISOString(),
  };
}

/** The `gen_ai.agent.id` values of these spans that could be agent ids (to look up in one query). */
export function candidateAgentIds(spans: readonly OtlpSpan[]): string[] {
  const ids = new Set<string>();
  for (const span of spans) {
    const agent = span.attributes.get(GEN_AI.agentId);
    if (isUuid(agent)) ids.add(agent.toLowerCase());
  }
  return [...ids];
}
