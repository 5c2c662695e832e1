import type { Route } from '../core/route.ts';
import { findEndUserUsage } from '../../sql/usage-end-users.ts';
import { analyticsEndpoint } from './endpoint.ts';
import { usageProjection } from './projection.ts';
import { usageCacheSavings, usageHeatmap, usageModelEfficiency } from './reports.ts';
import { checkedTimeZone } from './request.ts';
import {
  ByAgentResponse,
  CacheSavingsQuery,
  CacheSavingsResponse,
  DailyQuery,
  EndUsersQuery,
  EndUsersResponse,
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
import { usageByAgent, usageDaily, usageSummary } from './totals.ts';

/** A `timezone` query parameter, checked (400 for a zone the runtime does not know). */
const inTimeZone = (query: { timezone: string }) => ({ timezone: checkedTimeZone(query.timezone) });

export const analyticsRoutes: Route[] = [
  analyticsEndpoint({
    path: '/ai/org-usage/time-series',
    summary: 'Tokens and cost per time bucket, dense, aligned in a time zone',
    query: TimeSeriesQuery,
    response: { description: 'Buckets oldest first', schema: TimeSeriesResponse },
    parameters: (query, window) => ({
      ...inTimeZone(query),
      granularity: effectiveGranularity(window, query.granularity),
      groupBy: query.groupBy,
    }),
    compute: (db, window, { granularity, groupBy, timezone }) => usageTimeSeries(db, window, { granularity, groupBy, timeZone: timezone }),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/projection',
    summary: 'Month-end cost projection with an 80% prediction interval',
    query: WindowQuery,
    response: {
      description: '`ok` with the projection, or `insufficient_data` below 7 days with data',
      schema: ProjectionResponse,
    },
    compute: (db, window) => usageProjection(db, window),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/model-efficiency',
    summary: 'Cost, tokens, executions and latency per model, highest cost first',
    query: ModelEfficiencyQuery,
    response: { description: 'At most `limit` models', schema: ModelEfficiencyResponse },
    filter: (query) => (query.action ? { actionType: query.action } : {}),
    parameters: (query) => ({ limit: query.limit }),
    compute: (db, window, { limit }) => usageModelEfficiency(db, window, limit),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/end-users',
    summary: "Tokens, cost and turns per end user of the agents' web channels, highest cost first",
    query: EndUsersQuery,
    response: { description: 'At most `limit` end users', schema: EndUsersResponse },
    parameters: (query) => ({ limit: query.limit }),
    compute: async (db, window, { limit }) => ({ endUsers: await findEndUserUsage(db, window, limit) }),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/heatmap',
    summary: 'Tokens and cost per local day of week and hour',
    query: HeatmapQuery,
    response: { description: 'Sparse cells', schema: HeatmapResponse },
    parameters: inTimeZone,
    compute: (db, window, { timezone }) => usageHeatmap(db, window, timezone),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/cache-savings',
    summary: 'Prompt-cache savings and hit rate (source defaults to system)',
    query: CacheSavingsQuery,
    response: {
      description: 'Savings over priced models; skippedModelsCount counts unpriced ones',
      schema: CacheSavingsResponse,
    },
    compute: (db, window) => usageCacheSavings(db, window),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/summary',
    summary: 'Totals of the window',
    query: WindowQuery,
    response: { description: 'Totals', schema: SummaryResponse },
    compute: (db, window) => usageSummary(db, window),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/daily',
    summary: 'Totals per local calendar day, dense',
    query: DailyQuery,
    response: { description: 'Days oldest first', schema: DailyResponse },
    parameters: inTimeZone,
    compute: (db, window, { timezone }) => usageDaily(db, window, timezone),
  }),
  analyticsEndpoint({
    path: '/ai/org-usage/by-agent',
    summary: 'Totals per agent, highest cost first',
    query: WindowQuery,
    response: { description: 'One item per agent; usage without an agent has agentId null', schema: ByAgentResponse },
    compute: (db, window) => usageByAgent(db, window),
  }),
];
