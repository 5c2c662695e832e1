import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { usageSlices, type UsageWindow } from './usage-window.ts';

const CacheSavingsRow = z.strictObject({
  estimatedSavingsUsd: z.coerce.number(),
  totalCacheReadTokens: z.coerce.number(),
  totalInputTokens: z.coerce.number(),
  skippedModelsCount: z.coerce.number().int(),
});
export type CacheSavingsRow = z.infer<typeof CacheSavingsRow>;

/**
 * Prompt-cache savings of a window: per priced model, cache-read tokens times (input price
 * minus cache-read price, never negative) per million tokens; models without a pricing row are
 * counted, not priced. `totalInputTokens` is regular plus cached input.
 */
export async function findCacheSavings(db: CommonQueryMethods, window: UsageWindow): Promise<CacheSavingsRow> {
  return db.one(sql.type(CacheSavingsRow)`
    WITH per_model AS (
      SELECT model_id, sum(cache_read_tokens) AS cache_read, sum(input_tokens) AS input
      FROM (${usageSlices(window, 'day')}) slices
      GROUP BY model_id
    )
    SELECT coalesce(sum(m.cache_read * greatest(0, p.input_usd_per_mtok - p.cache_read_usd_per_mtok))
                      FILTER (WHERE p.model_id IS NOT NULL), 0)::float8 / 1000000 AS "estimatedSavingsUsd",
           coalesce(sum(m.cache_read), 0)::int8 AS "totalCacheReadTokens",
           coalesce(sum(m.cache_read + m.input), 0)::int8 AS "totalInputTokens",
           count(*) FILTER (WHERE p.model_id IS NULL)::int AS "skippedModelsCount"
    FROM per_model m
    LEFT JOIN model_pricing p ON p.model_id = m.model_id`);
}
