import { defineRoute } from '../../core/route.ts';
import { ValidationErrorBody } from '../../core/schemas.ts';
import { ingestEvents, IngestEventsBody, IngestResultSchema } from './events.ts';

/** Room for 1000 events of generous size (ids and model ids at their longest are ~1 KB each). */
export const EVENTS_BODY_LIMIT_BYTES = 1024 * 1024;

export const usageEventRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/org-usage/events',
    summary: 'Send usage events from outside the service (idempotent on id)',
    description:
      'An API key with usage:write, or a user token with update on organization. 1 to 1000 events; ' +
      'all or nothing: an invalid event is a 400 at ["events", i, field] and nothing is stored. An id ' +
      'already stored for the organization counts as a duplicate and changes nothing. A missing ' +
      'costUsd is priced from the price list as the event is stored (0 for a model without a price).',
    tags: ['analytics'],
    auth: { jwtOrApiKey: 'usage:write' },
    policy: { subject: 'organization', action: 'update' },
    rateLimit: { limit: 600, windowMs: '1m', identifierType: 'apiKey', policyName: 'usage-events', source: 'project' },
    body: { kind: 'json', limitBytes: EVENTS_BODY_LIMIT_BYTES },
    schemas: { body: IngestEventsBody },
    responses: {
      200: { description: 'How many events were new and how many were duplicates', schema: IngestResultSchema },
      400: { description: 'Invalid event (nothing stored)', schema: ValidationErrorBody },
    },
    handler: ({ deps, auth, body }) => ingestEvents(deps, auth, body.events),
  }),
];
