import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { rawFilters, ts, type UsageWindow } from './usage-window.ts';

const EndUserUsageRow = z.strictObject({
  endUserId: z.string(),
  externalId: z.string().nullable(),
  verified: z.boolean(),
  turns: z.number(),
  totalTokens: z.number(),
  totalCostUsd: z.number(),
});

/**
 * The end users with the highest cost in the window (ties by id), with their tokens and turns: the
 * raw rows of end users' turns, read through their partial index (organization, time) that
 * carries the end user, tokens and cost (migration 1103), so no other usage row is touched. Turns
 * are the end user's chat turns started in the window, counted for the listed end users only,
 * through their index by end user and start (migration 1130).
 */
export function findEndUserUsage(db: CommonQueryMethods, window: UsageWindow, limit: number) {
  return db.any(sql.type(EndUserUsageRow)`
    WITH spend AS (
      SELECT e.end_user_id, sum(e.input_tokens + e.output_tokens + e.cache_read_tokens)::float8 AS tokens,
             sum(e.cost_usd)::float8 AS cost
      FROM usage_events e
      WHERE e.organization_id = ${window.organizationId} AND e.end_user_id IS NOT NULL
        AND e.created_at >= ${ts(window.from)} AND e.created_at < ${ts(window.to)} ${rawFilters(window, 'e')}
      GROUP BY e.end_user_id
      ORDER BY cost DESC, e.end_user_id
      LIMIT ${limit}
    )
    SELECT s.end_user_id::text AS "endUserId", u.external_id AS "externalId", coalesce(u.kind <> 'anonymous', false) AS verified,
           (SELECT count(*)::int FROM chat_turns t
            WHERE t.end_user_id = s.end_user_id AND t.started_at >= ${ts(window.from)} AND t.started_at < ${ts(window.to)}) AS turns,
           s.tokens AS "totalTokens", s.cost AS "totalCostUsd"
    FROM spend s LEFT JOIN end_users u ON u.id = s.end_user_id
    ORDER BY s.cost DESC, s.end_user_id`);
}
