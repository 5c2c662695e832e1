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
export type SourceFilter = UsageSource | 'all';

/** The rows an analytics query reads: one organization, `[from, to)`, optional filters. */
export type UsageWindow = {
  organizationId: string;
  from: Date;
  /** Exclusive. */
  to: Date;
  source: SourceFilter;
  actionType?: ActionType;
};

/** Width of a rollup slot (sql/migrations/0400_usage.sql). */
export const SLOT_MS = 15 * 60_000;

/**
 * Splits `[from, to)` into the whole 15-minute slots read from the rollup and the partial
 * edges read from the raw rows, so that every answer equals the answer over raw rows.
 */
export function splitWindow(from: Date, to: Date): { innerFrom: Date; innerTo: Date } {
  const innerFrom = Math.ceil(from.getTime() / SLOT_MS) * SLOT_MS;
  const innerTo = Math.floor(to.getTime() / SLOT_MS) * SLOT_MS;
  if (innerFrom >= innerTo) return { innerFrom: to, innerTo: to };
  return { innerFrom: new Date(innerFrom), innerTo: new Date(innerTo) };
}

export const ts = (date: Date) => sql.fragment`${date.toISOString()}::timestamptz`;

function filters(window: UsageWindow): FragmentSqlToken {
  const parts: FragmentSqlToken[] = [];
  if (window.source !== 'all') parts.push(sql.fragment`AND source = ${window.source}`);
  if (window.actionType) parts.push(sql.fragment`AND action_type = ${window.actionType}`);
  return parts.length ? sql.fragment`${sql.join(parts, sql.fragment` `)}` : sql.fragment``;
}

function rawRange(window: UsageWindow, from: Date, to: Date): FragmentSqlToken {
  return sql.fragment`
    SELECT created_at AS at, model_id, action_type, source, 1::bigint AS events,
           input_tokens, output_tokens, cache_read_tokens, cost_usd::numeric AS cost_usd,
           coalesce(latency_ms, 0)::bigint AS latency_sum, (latency_ms IS NOT NULL)::int::bigint AS latency_count
    FROM usage_events
    WHERE organization_id = ${window.organizationId} AND created_at >= ${ts(from)} AND created_at < ${ts(to)} ${filters(window)}`;
}

/**
 * The usage of a window as "slices" with the rollup's columns (`at`, model_id, action_type,
 * source, events, input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_sum,
 * latency_count): whole slots from `usage_rollup_15m` (`at` = slot start) plus the raw rows
 * of the partial slots at both edges (`at` = created_at). Any grouping by a local hour, day,
 * week or month gives the raw rows' answer, since no bucket boundary falls inside a slot.
 */
export function usageSlices(window: UsageWindow): FragmentSqlToken {
  const { innerFrom, innerTo } = splitWindow(window.from, window.to);
  return sql.fragment`
    SELECT slot AS at, model_id, action_type, source, events, input_tokens, output_tokens,
           cache_read_tokens, cost_usd, latency_sum, latency_count
    FROM usage_rollup_15m
    WHERE organization_id = ${window.organizationId} AND slot >= ${ts(innerFrom)} AND slot < ${ts(innerTo)} ${filters(window)}
    UNION ALL ${rawRange(window, window.from, innerFrom)}
    UNION ALL ${rawRange(window, innerTo, window.to)}`;
}

/** `AND ...` filters for queries over raw rows of the window. */
export function rawFilters(window: UsageWindow): FragmentSqlToken {
  return filters(window);
}
