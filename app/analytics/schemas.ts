import { Type } from '@sinclair/typebox';
import { ACTION_TYPES, EVALUATION_FILTERS, SOURCE_FILTERS } from '../../sql/usage-window.ts';
import { DateTime, StrictObject, StringEnum } from '../core/schemas.ts';

const from = DateTime({ description: 'Window start (inclusive), ISO-8601 with offset' });
const to = DateTime({ description: 'Window end (exclusive); must be later than `from`' });
const source = (fallback: 'all' | 'system') => StringEnum(SOURCE_FILTERS, { default: fallback, description: 'Token pool' });
const evaluation = StringEnum(EVALUATION_FILTERS, {
  default: 'include',
  description: 'Usage of evaluation runs (docs/evaluations.md): `include` it, `exclude` it, or read `only` it',
});
const timezone = Type.String({ default: 'UTC', minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Madrid' });

export const WindowQuery = StrictObject({ from, to, source: source('all'), evaluation });

export const TimeSeriesQuery = StrictObject({
  from,
  to,
  source: source('all'),
  evaluation,
  granularity: Type.Optional(
    StringEnum(['hour', 'day', 'week', 'month'] as const, {
      description: 'Derived from the window length when omitted: <= 7 days hour, <= 90 day, <= 365 week, else month',
    }),
  ),
  groupBy: StringEnum(['none', 'action', 'model'] as const, { default: 'none' }),
  timezone,
});

export const ModelEfficiencyQuery = StrictObject({
  from,
  to,
  source: source('all'),
  evaluation,
  action: Type.Optional(StringEnum(ACTION_TYPES, { description: 'Only this action type' })),
  limit: Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Number of models, 1 to 50' }),
});

export const HeatmapQuery = StrictObject({ from, to, source: source('all'), evaluation, timezone });

export const EndUsersQuery = StrictObject({
  from,
  to,
  source: source('all'),
  evaluation,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Number of end users, 1 to 100' }),
});
export const EndUsersResponse = Type.Object({
  endUsers: Type.Array(
    Type.Object({
      endUserId: Type.String({ format: 'uuid' }),
      externalId: Type.Union([Type.String(), Type.Null()]),
      verified: Type.Boolean(),
      turns: Type.Integer({ minimum: 0 }),
      totalTokens: Type.Integer({ minimum: 0 }),
      totalCostUsd: Type.Number({ minimum: 0 }),
    }),
  ),
});

export const CacheSavingsQuery = StrictObject({ from, to, source: source('system'), evaluation });

export const DailyQuery = StrictObject({ from, to, source: source('all'), evaluation, timezone });

const Money = Type.Number({ minimum: 0, description: 'USD' });
const Tokens = Type.Integer({ minimum: 0 });
const Totals = { totalTokens: Tokens, totalCostUsd: Money };

export const TimeSeriesResponse = Type.Object({
  granularity: Type.String(),
  timezone: Type.String(),
  buckets: Type.Array(
    Type.Object({
      bucket: Type.String({ format: 'date-time' }),
      ...Totals,
      series: Type.Optional(Type.Record(Type.String(), Type.Object(Totals))),
    }),
  ),
});

export const ProjectionResponse = Type.Union([
  Type.Object({
    status: Type.Literal('ok'),
    actual: Type.Number(),
    projected: Type.Number(),
    lowerBound: Type.Number(),
    upperBound: Type.Number(),
    confidencePct: Type.Literal(80),
  }),
  Type.Object({
    status: Type.Literal('insufficient_data'),
    minDaysRequired: Type.Literal(7),
    daysAvailable: Type.Integer({ minimum: 0 }),
  }),
]);

export const ModelEfficiencyResponse = Type.Array(
  Type.Object({
    modelId: Type.String(),
    avgLatencyMs: Type.Union([Type.Number(), Type.Null()]),
    p95LatencyMs: Type.Union([Type.Number(), Type.Null()]),
    totalCostUsd: Money,
    totalTokens: Tokens,
    executionsCount: Tokens,
  }),
);

export const HeatmapResponse = Type.Object({
  timezone: Type.String(),
  cells: Type.Array(
    Type.Object({
      dayOfWeek: Type.Integer({ minimum: 0, maximum: 6 }),
      hour: Type.Integer({ minimum: 0, maximum: 23 }),
      ...Totals,
    }),
  ),
});

export const CacheSavingsResponse = Type.Object({
  estimatedSavingsUsd: Money,
  hitRate: Type.Number({ minimum: 0, maximum: 1 }),
  totalCacheReadTokens: Tokens,
  totalInputTokens: Tokens,
  skippedModelsCount: Tokens,
});

const Breakdown = {
  inputTokens: Tokens,
  outputTokens: Tokens,
  cacheReadTokens: Tokens,
  totalCostUsd: Money,
  executionsCount: Tokens,
};

export const SummaryResponse = Type.Object({
  totalTokens: Tokens,
  ...Breakdown,
  modelsCount: Tokens,
});

export const DailyResponse = Type.Object({
  timezone: Type.String(),
  days: Type.Array(
    Type.Object({ date: Type.String({ description: 'YYYY-MM-DD, local to the time zone' }), totalTokens: Tokens, ...Breakdown }),
  ),
});

export const ByAgentResponse = Type.Array(
  Type.Object({
    agentId: Type.Union([Type.String(), Type.Null()]),
    agentName: Type.Union([Type.String(), Type.Null()]),
    totalTokens: Tokens,
    totalCostUsd: Money,
    executionsCount: Tokens,
  }),
);
