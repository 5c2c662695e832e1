import type { Static, TSchema } from '@sinclair/typebox';
import type { CommonQueryMethods } from 'slonik';
import type { EvaluationFilter, SourceFilter, UsageWindow } from '../../sql/usage-window.ts';
import { defineRoute, type Route } from '../core/route.ts';
import { readStale } from '../db/replica.ts';
import { ErrorBody } from '../core/schemas.ts';
import { cached } from './cache.ts';
import { usageWindow, windowKey } from './request.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';

/**
 * Requests per minute and user on each analytics route: far above what the console or a
 * scripted report sends, low enough that one account cannot fill the cache at full speed.
 */
export const ANALYTICS_REQUESTS_PER_MINUTE = 600;

/** The query fields every analytics endpoint has (after validation and defaults). */
type WindowFields = { from: string; to: string; source: SourceFilter; evaluation?: EvaluationFilter };

/** What differs between analytics endpoints; everything else is the same steps, written once here. */
export type AnalyticsEndpoint<Q extends TSchema, P extends Record<string, unknown>> = {
  /** The route's path below `/api`, written out where the endpoint is declared; also the endpoint part of the cache key. */
  path: `/ai/org-usage/${string}`;
  summary: string;
  query: Q;
  response: { description: string; schema: TSchema };
  /** Narrows the window beyond organization, `[from, to)` and source (model-efficiency's `action`). */
  filter?: (query: Static<Q>) => Pick<UsageWindow, 'actionType'>;
  /**
   * Checks and resolves the endpoint's own parameters (time zone, granularity, limit) once the
   * window is valid; throws `ValidationError` for a 400. They join the cache key, so a default
   * and its explicit value share an entry.
   */
  parameters?: (query: Static<Q>, window: UsageWindow) => P;
  /** The answer, computed on a cache miss. */
  compute: (db: CommonQueryMethods, window: UsageWindow, parameters: P) => Promise<unknown>;
};

/**
 * One analytics route: read `from`, `to`, `source` (and the endpoint's filter) of the requested
 * organization (403 for another one), check the window (400 unless `from < to`), resolve the
 * endpoint's parameters, then answer from the per-app cache or compute and store
 * (docs/analytics.md, "Decisions", was ADR 0042).
 */
export function analyticsEndpoint<Q extends TSchema, P extends Record<string, unknown> = Record<never, never>>(
  endpoint: AnalyticsEndpoint<Q, P>,
): Route {
  return defineRoute({
    method: 'GET',
    path: endpoint.path,
    summary: endpoint.summary,
    description: 'Results are cached for 300 s per organization and parameters; the `x-cache` header says `hit` or `miss`.',
    tags: ['usage analytics'],
    auth: 'jwt',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    rateLimit: { limit: ANALYTICS_REQUESTS_PER_MINUTE, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { query: endpoint.query as TSchema },
    responses: {
      200: endpoint.response,
      403: { description: '`x-org-id` names another organization', schema: ErrorBody },
    },
    handler: ({ deps, ctx, scope, query: validated }) => {
      const query = validated as Static<Q> & WindowFields;
      const { organizationId } = scope;
      const window = usageWindow(organizationId, query, endpoint.filter?.(query) ?? {});
      const parameters = endpoint.parameters?.(query, window) ?? ({} as P);
      const key = { endpoint: endpoint.path, organizationId, params: { ...windowKey(window), ...parameters } };
      // Read from the replica when one is configured (a second of staleness is harmless under a 300 s cache).
      return cached(deps, ctx, key, () => readStale(deps, (db) => endpoint.compute(db, window, parameters)));
    },
  });
}
