import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/*
 * The agency's bill of one UTC month (docs/billing.md): per business, the plan of the month, its
 * price and markup then, and the platform-key usage cost of the month from the month rollup
 * (migration 1221). Amounts leave PostgreSQL already rounded half-up to whole cents.
 */

const BillLine = z.strictObject({
  businessId: z.string(),
  businessName: z.string(),
  planId: z.string().nullable(),
  planName: z.string().nullable(),
  priceCents: z.number(),
  usageMarkupPercent: z.number(),
  usageCostCents: z.number(),
  usageBilledCents: z.number(),
});
export type BillLine = z.infer<typeof BillLine>;

/**
 * The lines of the agency's bill for the month `[from, to)`, its plans and prices read as they
 * were at `at` (the month's end, or now while it runs): the business's last plan period that
 * started before `at`, and that plan's last price that started before `at` (its first, for a plan
 * priced only later). A business is on the bill when it existed before the month ended. Only
 * `source = 'system'` usage is billed (BYOK usage is the business's own bill). Rounding: numeric
 * `round(x, 2)` rounds half away from zero, which for these non-negative amounts is half-up; the
 * billed usage is rounded from the exact cost times the markup, not from the rounded cost.
 */
export function listBillLines(db: CommonQueryMethods, bill: { organizationId: string; from: Date; to: Date; at: Date }) {
  const at = sql.timestamp(bill.at);
  // Per business two index probes (its plan period, its month's usage); the agency's few plan prices once.
  return db.any(sql.type(BillLine)`
    WITH price AS (
      SELECT DISTINCT ON (pp.plan_id) pp.plan_id, pp.price_cents, pp.usage_markup_percent
      FROM plan_prices pp JOIN plans pl ON pl.id = pp.plan_id
      WHERE pl.organization_id = ${bill.organizationId}
      ORDER BY pp.plan_id, pp.starts_at < ${at} DESC, CASE WHEN pp.starts_at < ${at} THEN pp.starts_at END DESC, pp.starts_at, pp.id DESC)
    SELECT b.id AS "businessId", b.name AS "businessName", pl.id AS "planId", pl.name AS "planName",
           coalesce(pr.price_cents, 0) AS "priceCents", coalesce(pr.usage_markup_percent, 0) AS "usageMarkupPercent",
           (round(coalesce(u.cost_usd, 0), 2) * 100)::int8::float8 AS "usageCostCents",
           (round(coalesce(u.cost_usd, 0) * (100 + coalesce(pr.usage_markup_percent, 0)) / 100, 2) * 100)::int8::float8
             AS "usageBilledCents"
    FROM organizations b
    LEFT JOIN LATERAL (
      SELECT plan_id FROM business_plan_periods
      WHERE organization_id = b.id AND starts_at < ${at}
      ORDER BY starts_at DESC, id DESC LIMIT 1) per ON true
    LEFT JOIN plans pl ON pl.id = per.plan_id
    LEFT JOIN price pr ON pr.plan_id = pl.id
    LEFT JOIN usage_rollup_month u ON u.organization_id = b.id AND u.month = ${sql.timestamp(bill.from)} AND u.source = 'system'
    WHERE b.parent_id = ${bill.organizationId} AND b.type = 'BUSINESS'
      AND (b.created_at < ${sql.timestamp(bill.to)} OR per.plan_id IS NOT NULL)
    ORDER BY b.name, b.id`);
}
