import { Type, type Static } from '@sinclair/typebox';
import { uuidv7 } from 'uuidv7';
import { findAgentIdsOfOrganization, findUserIdsOfOrganization } from '../../../sql/usage-ingest.ts';
import { ACTION_TYPES, USAGE_SOURCES } from '../../../sql/usage-window.ts';
import type { IngestionCaller } from '../../core/route.ts';
import type { AppDeps } from '../../core/deps.ts';
import { ValidationError, type ValidationIssue } from '../../core/errors.ts';
import { DateTime, StrictObject, StringEnum } from '../../core/schemas.ts';
import { storeIngestedEvents, type IngestResult } from './store.ts';

/** Largest batch of the events API. */
export const MAX_EVENTS_PER_BATCH = 1000;
/** Tokens of one field of one event: far above any model's context, far below what a sum overflows at. */
export const MAX_EVENT_TOKENS = 1_000_000_000;

const Tokens = Type.Integer({ minimum: 0, maximum: MAX_EVENT_TOKENS });
const OptionalUuid = Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()]));

/** A usage event as sent to the events API: the import's event without `organizationId`, plus `id`. */
export const IngestEvent = StrictObject({
  id: Type.String({ minLength: 1, maxLength: 128, description: 'Idempotency key, unique per organization' }),
  agentId: OptionalUuid,
  userId: OptionalUuid,
  modelId: Type.String({ minLength: 1, maxLength: 200 }),
  actionType: StringEnum(ACTION_TYPES),
  source: StringEnum(USAGE_SOURCES),
  inputTokens: Tokens,
  outputTokens: Tokens,
  cacheReadTokens: Tokens,
  costUsd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'Absent: from the price list' })),
  latencyMs: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()])),
  createdAt: DateTime(),
});

export const IngestEventsBody = StrictObject({
  events: Type.Array(IngestEvent, { minItems: 1, maxItems: MAX_EVENTS_PER_BATCH }),
});

export const IngestResultSchema = Type.Object({
  accepted: Type.Integer({ description: 'Events stored by this request' }),
  duplicates: Type.Integer({ description: 'Events whose id was already stored (or repeated in the batch): nothing changed' }),
});

const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(10_000, 0, 1);
/** An instant usage may carry: a real one (not a leap second Date cannot read), years 2000 to 9999. */
export const isStorableInstant = (ms: number) => Number.isFinite(ms) && ms >= EARLIEST && ms < LATEST;

/**
 * The events API: all or nothing. Every event is checked (schema, a real instant, an agent of
 * the organization) before anything is stored; then new ids are stored and known ids counted.
 */
export async function ingestEvents(
  deps: AppDeps,
  caller: IngestionCaller,
  events: Static<typeof IngestEventsBody>['events'],
): Promise<IngestResult> {
  const issues: ValidationIssue[] = [];
  const instants = events.map((event) => Date.parse(event.createdAt));
  events.forEach((event, index) => {
    if (!isStorableInstant(instants[index]!)) {
      issues.push({ path: ['events', String(index), 'createdAt'], message: 'must be an ISO-8601 date-time from the year 2000 to 9999' });
    }
  });
  const agentIds = [...new Set(events.flatMap((event) => (event.agentId ? [event.agentId.toLowerCase()] : [])))];
  const userIds = [...new Set(events.flatMap((event) => (event.userId ? [event.userId.toLowerCase()] : [])))];
  // A row names only the organization's own agents and users: never another tenant's ids.
  const [known, users] = await Promise.all([
    findAgentIdsOfOrganization(deps.db, caller.organizationId, agentIds),
    findUserIdsOfOrganization(deps.db, caller.organizationId, userIds),
  ]);
  events.forEach((event, index) => {
    if (event.agentId && !known.has(event.agentId.toLowerCase())) {
      issues.push({ path: ['events', String(index), 'agentId'], message: 'must be an agent of the organization' });
    }
    if (event.userId && !users.has(event.userId.toLowerCase())) {
      issues.push({ path: ['events', String(index), 'userId'], message: 'must be a user of the organization' });
    }
  });
  if (issues.length) throw new ValidationError(issues);
  return storeIngestedEvents(
    deps,
    caller.organizationId,
    events.map((event) => `event:${event.id}`),
    (index) => {
      const event = events[index]!;
      return {
        id: uuidv7(),
        organizationId: caller.organizationId,
        ingestKey: `event:${event.id}`,
        agentId: event.agentId?.toLowerCase() ?? null,
        userId: event.userId?.toLowerCase() ?? null,
        modelId: event.modelId,
        actionType: event.actionType,
        source: event.source,
        inputTokens: event.inputTokens,
        outputTokens: event.outputTokens,
        cacheReadTokens: event.cacheReadTokens,
        costUsd: event.costUsd ?? null,
        latencyMs: event.latencyMs ?? null,
        createdAt: new Date(instants[index]!).toISOString(),
      };
    },
  );
}
