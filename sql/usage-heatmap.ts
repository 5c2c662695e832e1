import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { usageSlices, type UsageWindow } from './usage-window.ts';

const HeatmapCellRow = z.strictObject({
  dayOfWeek: z.coerce.number().int(),
  hour: z.coerce.number().int(),
  totalTokens: z.coerce.number(),
  totalCostUsd: z.coerce.number(),
});
export type HeatmapCellRow = z.infer<typeof HeatmapCellRow>;

/**
 * Usage per local day of week (0 = Sunday) and wall-clock hour in `timeZone`, only cells with
 * tokens or cost. Slices are summed per slot first so the zone conversion runs once a slot.
 */
export async function findUsageByLocalDayAndHour(
  db: CommonQueryMethods,
  window: UsageWindow,
  timeZone: string,
): Promise<readonly HeatmapCellRow[]> {
  return db.any(sql.type(HeatmapCellRow)`
    SELECT extract(dow FROM at AT TIME ZONE ${timeZone})::int AS "dayOfWeek",
           extract(hour FROM at AT TIME ZONE ${timeZone})::int AS hour,
           sum(tokens)::int8 AS "totalTokens", sum(cost)::float8 AS "totalCostUsd"
    FROM (
      SELECT at, sum(input_tokens + output_tokens + cache_read_tokens) AS tokens, sum(cost_usd) AS cost
      FROM (${usageSlices(window, 'slot')}) slices
      GROUP BY at
    ) per_slot
    GROUP BY 1, 2
    HAVING sum(tokens) > 0 OR sum(cost) > 0
    ORDER BY 1, 2`);
}

const KnownRow = z.strictObject({ known: z.boolean() });

/** Does PostgreSQL know the zone name (its tz database may differ from the runtime's ICU)? */
export async function isTimeZoneKnownToDatabase(db: CommonQueryMethods, timeZone: string): Promise<boolean> {
  return db.oneFirst(sql.type(KnownRow)`
    SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = ${timeZone}) AS known`);
}
