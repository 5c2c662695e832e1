/** Shapes of the analytics answers the page reads (the API's documented responses). */

export type Totals = { totalTokens: number; totalCostUsd: number };

export type TimeSeries = {
  granularity: 'hour' | 'day' | 'week' | 'month';
  timezone: string;
  buckets: (Totals & { bucket: string; series?: Record<string, Totals> })[];
};

export type Projection =
  | { status: 'ok'; actual: number; projected: number; lowerBound: number; upperBound: number; confidencePct: 80 }
  | { status: 'insufficient_data'; minDaysRequired: number; daysAvailable: number };

/** `GET /api/ai/org-usage/budget` (404 when the organization has none). */
export type Budget = {
  monthlyLimitUsd: number;
  alertThresholdsPct: number[];
  month: string;
  spentUsd: number;
  projectedUsd: number | null;
  status: 'ok' | 'at_risk' | 'exceeded';
};

export type ModelEfficiency = {
  modelId: string;
  avgLatencyMs: number | null;
  p95LatencyMs: number | null;
  totalCostUsd: number;
  totalTokens: number;
  executionsCount: number;
}[];

export type Heatmap = { timezone: string; cells: (Totals & { dayOfWeek: number; hour: number })[] };

export type CacheSavings = {
  estimatedSavingsUsd: number;
  hitRate: number;
  totalCacheReadTokens: number;
  totalInputTokens: number;
  skippedModelsCount: number;
};

export type Source = 'all' | 'system' | 'byok';
export type GroupBy = 'none' | 'model' | 'action';
export type Granularity = 'auto' | 'hour' | 'day' | 'week' | 'month';
