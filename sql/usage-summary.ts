import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { rawFilters, ts, usageSlices, type UsageWindow } from './usage-window.ts';

const UsageTotalsRow = z.strictObject({
  totalTokens: z.coerce.number(),
  inputTokens: z.coerce.number(),
  outputTokens: z.coerce.number(),
  cacheReadTokens: z.coerce.number(),
  totalCostUsd: z.coerce.number(),
  executionsCount: z.coerce.number(),
  modelsCount: z.coerce.number().int(),
});
export type UsageTotalsRow = z.infer<typeof UsageTotalsRow>;

/** Totals of a window (the `summary` endpoint). */
export async function findUsageTotals(db: CommonQueryMethods, window: UsageWindow): Promise<UsageTotalsRow> {
  return db.one(sql.type(UsageTotalsRow)`
    SELECT coalesce(sum(input_tokens + output_tokens + cache_read_tokens), 0)::int8 AS "totalTokens",
           coalesce(sum(input_tokens), 0)::int8 AS "inputTokens",
           coalesce(sum(output_tokens), 0)::int8 AS "outputTokens",
           coalesce(sum(cache_read_tokens), 0)::int8 AS "cacheReadTokens",
           coalesce(sum(cost_usd), 0)::float8 AS "totalCostUsd",
           coalesce(sum(events), 0)::int8 AS "executionsCount",
           count(DISTINCT model_id)::int AS "modelsCount"
    FROM (${usageSlices(window, 'day')}) slices`);
}

const AgentUsageRow = z.strictObject({
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  totalTokens: z.coerce.number(),
  totalCostUsd: z.coerce.number(),
  executionsCount: z.coerce.number(),
});
export type AgentUsageRow = z.infer<typeof AgentUsageRow>;

/**
 * Totals per agent of a window, highest cost first (ties by agent id; usage without an agent
 * last among equals). Names come only from the organization's own agents. Reads raw rows:
 * the rollup has no agent dimension.
 */
export async function findUsageByAgent(db: CommonQueryMethods, window: UsageWindow): Promise<readonly AgentUsageRow[]> {
  return db.any(sql.type(AgentUsageRow)`
    SELECT u.agent_id AS "agentId", a.name AS "agentName",
           sum(u.input_tokens + u.output_tokens + u.cache_read_tokens)::int8 AS "totalTokens",
           sum(u.cost_usd)::float8 AS "totalCostUsd", count(*)::int8 AS "executionsCount"
    FROM usage_events u
    LEFT JOIN agents a ON a.id = u.agent_id AND a.organization_id = u.organization_id
    WHERE u.organization_id = ${window.organizationId}
      AND u.created_at >= ${ts(window.from)} AND u.created_at < ${ts(window.to)} ${rawFilters(window)}
    GROUP BY u.agent_id, a.name
    ORDER BY sum(u.cost_usd) DESC, u.agent_id ASC NULLS LAST`);
}
