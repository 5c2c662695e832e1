import type { TSchema } from '@sinclair/typebox';
import { defineRoute, type Route } from '../core/route.ts';
import { ErrorBody } from '../core/schemas.ts';
import { cached } from './cache.ts';
import { usageByAgent, usageDaily, usageSummary } from './older.ts';
import { usageProjection } from './projection.ts';
import { usageCacheSavings, usageHeatmap, usageModelEfficiency } from './reports.ts';
import { checkedTimeZone, requestedOrganization, usageWindow, windowKey } from './request.ts';
import {
  ByAgentResponse,
  CacheSavingsQuery,
  CacheSavingsResponse,
  DailyQuery,
  DailyResponse,
  HeatmapQuery,
  HeatmapResponse,
  ModelEfficiencyQuery,
  ModelEfficiencyResponse,
  ProjectionResponse,
  SummaryResponse,
  TimeSeriesQuery,
  TimeSeriesResponse,
  WindowQuery,
} from './schemas.ts';
import { effectiveGranularity, usageTimeSeries } from './time-series.ts';

const responses = (description: string, schema: TSchema) => ({
  200: { description, schema },
  401: { description: 'Missing or invalid access token', schema: ErrorBody },
  403: { description: 'No `read` on `ai.agent`, or `x-org-id` names another organization', schema: ErrorBody },
});

const common = {
  method: 'GET' as const,
  tags: ['usage analytics'],
  auth: 'jwt' as const,
  policy: { subject: 'ai.agent', action: 'read' },
  description: 'Results are cached for 300 s per organization and parameters; the `x-cache` header says `hit` or `miss`.',
};

export const analyticsRoutes: Route[] = [
  defineRoute({
    ...common,
    path: '/ai/org-usage/time-series',
    summary: 'Tokens and cost per time bucket, dense, aligned in a time zone',
    schemas: { query: TimeSeriesQuery },
    responses: responses('Buckets oldest first', TimeSeriesResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      const timeZone = checkedTimeZone(query.timezone);
      const granularity = effectiveGranularity(window, query.granularity);
      const params = { ...windowKey(window), granularity, groupBy: query.groupBy, timezone: timeZone };
      return cached(deps, ctx, { endpoint: 'time-series', organizationId, params }, () =>
        usageTimeSeries(deps.db, window, { granularity, groupBy: query.groupBy, timeZone }),
      );
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/projection',
    summary: 'Month-end cost projection with an 80% prediction interval',
    schemas: { query: WindowQuery },
    responses: responses('`ok` with the projection, or `insufficient_data` below 7 days with data', ProjectionResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      return cached(deps, ctx, { endpoint: 'projection', organizationId, params: windowKey(window) }, () =>
        usageProjection(deps.db, window),
      );
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/model-efficiency',
    summary: 'Cost, tokens, executions and latency per model, highest cost first',
    schemas: { query: ModelEfficiencyQuery },
    responses: responses('At most `limit` models', ModelEfficiencyResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query, query.action ? { actionType: query.action } : {});
      const params = { ...windowKey(window), limit: query.limit };
      return cached(deps, ctx, { endpoint: 'model-efficiency', organizationId, params }, () =>
        usageModelEfficiency(deps.db, window, query.limit),
      );
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/heatmap',
    summary: 'Tokens and cost per local day of week and hour',
    schemas: { query: HeatmapQuery },
    responses: responses('Sparse cells', HeatmapResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      const timeZone = checkedTimeZone(query.timezone);
      const params = { ...windowKey(window), timezone: timeZone };
      return cached(deps, ctx, { endpoint: 'heatmap', organizationId, params }, () => usageHeatmap(deps.db, window, timeZone));
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/cache-savings',
    summary: 'Prompt-cache savings and hit rate (source defaults to system)',
    schemas: { query: CacheSavingsQuery },
    responses: responses('Savings over priced models; skippedModelsCount counts unpriced ones', CacheSavingsResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      return cached(deps, ctx, { endpoint: 'cache-savings', organizationId, params: windowKey(window) }, () =>
        usageCacheSavings(deps.db, window),
      );
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/summary',
    summary: 'Totals of the window',
    schemas: { query: WindowQuery },
    responses: responses('Totals', SummaryResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      return cached(deps, ctx, { endpoint: 'summary', organizationId, params: windowKey(window) }, () =>
        usageSummary(deps.db, window),
      );
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/daily',
    summary: 'Totals per local calendar day, dense',
    schemas: { query: DailyQuery },
    responses: responses('Days oldest first', DailyResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      const timeZone = checkedTimeZone(query.timezone);
      const params = { ...windowKey(window), timezone: timeZone };
      return cached(deps, ctx, { endpoint: 'daily', organizationId, params }, () => usageDaily(deps.db, window, timeZone));
    },
  }),
  defineRoute({
    ...common,
    path: '/ai/org-usage/by-agent',
    summary: 'Totals per agent, highest cost first',
    schemas: { query: WindowQuery },
    responses: responses('One item per agent; usage without an agent has agentId null', ByAgentResponse),
    handler: ({ deps, ctx, auth, query }) => {
      const organizationId = requestedOrganization(ctx, auth);
      const window = usageWindow(organizationId, query);
      return cached(deps, ctx, { endpoint: 'by-agent', organizationId, params: windowKey(window) }, () =>
        usageByAgent(deps.db, window),
      );
    },
  }),
];
