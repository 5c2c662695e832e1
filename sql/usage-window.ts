import { sql, type FragmentSqlToken } from 'slonik';

export const ACTION_TYPES = [
  'user_interaction',
  'guardrail_check',
  'title_generation',
  'rag_query_embedding',
  'document_indexing',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
export const USAGE_SOURCES = ['system', 'byok'] as const;
export type UsageSource = (typeof USAGE_SOURCES)[number];
/** A query's token pool: one source or both. */
export const SOURCE_FILTERS = [...USAGE_SOURCES, 'all'] as const;
export type SourceFilter = (typeof SOURCE_FILTERS)[number];

/** The rows an analytics query reads: one organization, `[from, to)`, optional filters. */
export type UsageWindow = {
  organizationId: string;
  from: Date;
  /** Exclusive. */
  to: Date;
  source: SourceFilter;
  actionType?: ActionType;
  /**
   * The usage of evaluation runs (`metadata.evaluation`, docs/evaluations.md): left out or the only
   * rows read; absent: included. Rollups do not keep it, so a window that sets it is read from raw rows.
   */
  evaluation?: EvaluationFilter;
};
export const EVALUATION_FILTERS = ['include', 'exclude', 'only'] as const;
export type EvaluationFilter = (typeof EVALUATION_FILTERS)[number];

/** Width of a 15-minute rollup slot and of a day rollup row (sql/migrations/0401_usage_rollups_by_grain.sql). */
export const SLOT_MS = 15 * 60_000;
export const DAY_MS = 86_400_000;

/**
 * Which rollup a query reads (docs/analytics.md, "Decisions", was ADR 0043): the 15-minute slots
 * per source, per source and action, per source and model, or whole UTC days with every
 * dimension (for window totals). A query may only read dimensions its rollup keeps.
 */
export type RollupGrain = 'slot' | 'slot-action' | 'slot-model' | 'day';

const ROLLUPS: Record<RollupGrain, { table: string; at: string; unit: number; model: boolean; action: boolean; latency: boolean }> = {
  slot: { table: 'usage_rollup_15m_source', at: 'slot', unit: SLOT_MS, model: false, action: false, latency: false },
  'slot-action': { table: 'usage_rollup_15m_action', at: 'slot', unit: SLOT_MS, model: false, action: true, latency: false },
  'slot-model': { table: 'usage_rollup_15m_model', at: 'slot', unit: SLOT_MS, model: true, action: false, latency: false },
  day: { table: 'usage_rollup_day', at: 'day', unit: DAY_MS, model: true, action: true, latency: true },
};

/**
 * Splits `[from, to)` into the whole rollup units (15-minute slots or UTC days, both aligned
 * to the Unix epoch) read from a rollup and the partial edges read from the raw rows, so that
 * every answer equals the answer over raw rows.
 */
export function splitWindow(from: Date, to: Date, unit = SLOT_MS): { innerFrom: Date; innerTo: Date } {
  const innerFrom = Math.ceil(from.getTime() / unit) * unit;
  const innerTo = Math.floor(to.getTime() / unit) * unit;
  if (innerFrom >= innerTo) return { innerFrom: to, innerTo: to };
  return { innerFrom: new Date(innerFrom), innerTo: new Date(innerTo) };
}

export const ts = (date: Date) => sql.fragment`${date.toISOString()}::timestamptz`;

/** Whether the window reads only raw rows: rollups cannot tell evaluation usage from the rest. */
export const readsRawOnly = (window: UsageWindow) => window.evaluation === 'exclude' || window.evaluation === 'only';

function filters(window: UsageWindow, table?: string, rollup = false): FragmentSqlToken {
  const column = (name: string) => sql.identifier(table === undefined ? [name] : [table, name]);
  const parts: FragmentSqlToken[] = [];
  if (window.source !== 'all') parts.push(sql.fragment`AND ${column('source')} = ${window.source}`);
  if (window.actionType) parts.push(sql.fragment`AND ${column('action_type')} = ${window.actionType}`);
  const evaluation = sql.fragment`coalesce((${column('metadata')}->>'evaluation')::boolean, false)`;
  if (!rollup && window.evaluation === 'exclude') parts.push(sql.fragment`AND NOT ${evaluation}`);
  if (!rollup && window.evaluation === 'only') parts.push(sql.fragment`AND ${evaluation}`);
  return parts.length ? sql.fragment`${sql.join(parts, sql.fragment` `)}` : sql.fragment``;
}

/** Raw rows of `[from, to)` as slices; actions and sources as text, as the rollups give them. */
function rawRange(window: UsageWindow, from: Date, to: Date): FragmentSqlToken {
  return sql.fragment`
    SELECT created_at AS at, model_id, action_type::text AS action_type, source::text AS source, 1::bigint AS events,
           input_tokens, output_tokens, cache_read_tokens, cost_usd::numeric AS cost_usd,
           coalesce(latency_ms, 0)::bigint AS latency_sum, (latency_ms IS NOT NULL)::int::bigint AS latency_count
    FROM usage_events
    WHERE organization_id = ${window.organizationId} AND created_at >= ${ts(from)} AND created_at < ${ts(to)} ${filters(window)}`;
}

/**
 * The usage of a window as "slices" with the columns at, model_id, action_type, source,
 * events, input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_sum, latency_count:
 * whole units from the rollup of `grain` (`at` = unit start; dimensions the rollup lacks are
 * NULL, latency sums 0) plus the raw rows of the partial units at both edges (`at` =
 * created_at). With the 15-minute grains any grouping by a local hour, day, week or month
 * gives the raw rows' answer, since no bucket boundary falls inside a slot; the day grain
 * suits window totals and UTC days only.
 */
export function usageSlices(window: UsageWindow, grain: RollupGrain): FragmentSqlToken {
  const rollup = ROLLUPS[grain];
  if (window.actionType && !rollup.action) throw new Error(`the ${grain} rollup cannot filter by action`);
  // A window with an evaluation filter reads its raw rows only (no whole unit from a rollup).
  const { innerFrom, innerTo } = readsRawOnly(window)
    ? { innerFrom: window.to, innerTo: window.to }
    : splitWindow(window.from, window.to, rollup.unit);
  const at = sql.identifier(['r', rollup.at]);
  // Rollups number models (usage_models); the slices carry the model id.
  const model = rollup.model ? sql.fragment`m.model_id` : sql.fragment`NULL::text`;
  const models = rollup.model ? sql.fragment`JOIN usage_models m ON m.code = r.model_code` : sql.fragment``;
  const action = rollup.action ? sql.fragment`r.action_type::text` : sql.fragment`NULL::text`;
  const latency = rollup.latency ? sql.fragment`r.latency_sum, r.latency_count::bigint` : sql.fragment`0::bigint, 0::bigint`;
  return sql.fragment`
    SELECT ${at} AS at, ${model} AS model_id, ${action} AS action_type, r.source::text AS source, r.events::bigint AS events,
           r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cost_usd, ${latency}
    FROM ${sql.identifier([rollup.table])} r ${models}
    WHERE r.organization_id = ${window.organizationId} AND ${at} >= ${ts(innerFrom)} AND ${at} < ${ts(innerTo)} ${filters(window, 'r', true)}
    UNION ALL ${rawRange(window, window.from, innerFrom)}
    UNION ALL ${rawRange(window, innerTo, window.to)}`;
}

/** `AND ...` filters for queries over raw rows of the window (of `table` when given). */
export function rawFilters(window: UsageWindow, table?: string): FragmentSqlToken {
  return filters(window, table);
}

/** `AND ...` filters for a query of a rollup (of `table`): the evaluation filter is not one (see `readsRawOnly`). */
export function rollupFilters(window: UsageWindow, table: string): FragmentSqlToken {
  return filters(window, table, true);
}

/** `[from, to)` as whole UTC days of the day rollup corrected by raw rows (`coverWithDays`). */
export type DayCover = {
  dayFrom: Date;
  /** Exclusive; equal to `dayFrom` when no day is read whole. */
  dayTo: Date;
  /** Raw ranges `[from, to)` added to the days (partial days read as rows). */
  add: [Date, Date][];
  /** Raw ranges taken away from the days (the rest of an edge day read whole). */
  subtract: [Date, Date][];
};

/** Years 0 to 9999: what `ts` writes as PostgreSQL reads it (toISOString gives other years a sign and six digits). */
const WRITABLE_FROM = Date.parse('0000-01-01T00:00:00.000Z');
const WRITABLE_UNTIL = Date.parse('9999-12-31T00:00:00.000Z') + DAY_MS;
const writable = (ms: number) => ms >= WRITABLE_FROM && ms < WRITABLE_UNTIL;

/**
 * Covers `[from, to)` with whole UTC days and raw corrections, so that no raw read spans more
 * than half a day per edge: a partial day at an edge is read as its own raw rows when they span
 * at most half the day, else as the whole day from the rollup minus the raw rows of the rest of
 * it. (A window ending at 23:53 reads 7 minutes of raw rows, not 23 hours and 53 minutes.)
 */
export function coverWithDays(from: Date, to: Date): DayCover {
  const f = from.getTime();
  const t = to.getTime();
  const half = DAY_MS / 2;
  const innerFrom = Math.ceil(f / DAY_MS) * DAY_MS;
  const innerTo = Math.floor(t / DAY_MS) * DAY_MS;
  const at = (ms: number) => new Date(ms);
  if (innerFrom > innerTo) {
    // Inside one day: the raw window, or the day minus what lies before and after it.
    if (t - f <= half || !writable(innerFrom)) return { dayFrom: to, dayTo: to, add: [[from, to]], subtract: [] };
    return {
      dayFrom: at(innerTo),
      dayTo: at(innerFrom),
      add: [],
      subtract: [
        [at(innerTo), from],
        [to, at(innerFrom)],
      ],
    };
  }
  const cover: DayCover = { dayFrom: at(innerFrom), dayTo: at(innerTo), add: [], subtract: [] };
  if (innerFrom - f > half && writable(innerFrom - DAY_MS)) {
    cover.dayFrom = at(innerFrom - DAY_MS);
    cover.subtract.push([cover.dayFrom, from]);
  } else if (innerFrom > f) cover.add.push([from, at(innerFrom)]);
  if (t - innerTo > half && writable(innerTo + DAY_MS)) {
    cover.dayTo = at(innerTo + DAY_MS);
    cover.subtract.push([to, cover.dayTo]);
  } else if (t > innerTo) cover.add.push([at(innerTo), to]);
  return cover;
}
