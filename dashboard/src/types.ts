/** Shapes of the analytics answers the page reads, taken from the generated API types (docs/architecture.md, "Decisions"). */
import type { ApiQuery, ApiResponse } from './api-types.generated.ts';

export type TimeSeries = ApiResponse<'GET /ai/org-usage/time-series'>;
export type Totals = Pick<TimeSeries['buckets'][number], 'totalTokens' | 'totalCostUsd'>;
export type Projection = ApiResponse<'GET /ai/org-usage/projection'>;
/** The organization's budgets: none or one (`GET /api/ai/org-usage/budgets`; the console never asks for the 404 of none). */
export type Budgets = ApiResponse<'GET /ai/org-usage/budgets'>;
export type Budget = Budgets['budgets'][number];
export type ModelEfficiency = ApiResponse<'GET /ai/org-usage/model-efficiency'>;
/** The model-efficiency filter: one of the five action types of usage. */
export type Action = NonNullable<ApiQuery<'GET /ai/org-usage/model-efficiency'>['action']>;
export type EndUsers = ApiResponse<'GET /ai/org-usage/end-users'>;
export type Heatmap = ApiResponse<'GET /ai/org-usage/heatmap'>;
export type CacheSavings = ApiResponse<'GET /ai/org-usage/cache-savings'>;

type UsageQuery = ApiQuery<'GET /ai/org-usage/time-series'>;
export type Source = NonNullable<UsageQuery['source']>;
export type GroupBy = NonNullable<UsageQuery['groupBy']>;
/** `auto`: the page leaves `granularity` out and the server derives it from the window. */
export type Granularity = 'auto' | NonNullable<UsageQuery['granularity']>;
