import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ts, usageSlices, type UsageWindow } from './usage-window.ts';

const DailySpendRow = z.strictObject({
  /** Whole UTC days from the UTC day of the window start. */
  t: z.coerce.number().int(),
  costUsd: z.coerce.number(),
  /** Total cost of the window (same on every row). */
  windowCostUsd: z.coerce.number(),
});
export type DailySpendRow = z.infer<typeof DailySpendRow>;

/** Cost per UTC calendar day of the window, only days with usage rows (docs/interface.md §5). */
export async function findDailySpendInWindow(db: CommonQueryMethods, window: UsageWindow): Promise<readonly DailySpendRow[]> {
  return db.any(sql.type(DailySpendRow)`
    SELECT ((at AT TIME ZONE 'UTC')::date - (${ts(window.from)} AT TIME ZONE 'UTC')::date) AS t,
           sum(cost_usd)::float8 AS "costUsd",
           (sum(sum(cost_usd)) OVER ())::float8 AS "windowCostUsd"
    FROM (${usageSlices(window, 'day')}) slices
    GROUP BY 1
    ORDER BY 1`);
}
