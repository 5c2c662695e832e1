import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PresentRow } from './rows.ts';

/* The businesses an agency serves, as the agency sees them (docs/identity.md, "The agency's clients"). */

const BusinessRow = z.strictObject({
  id: z.string(),
  name: z.string(),
  plan: z.strictObject({ id: z.string(), name: z.string() }).nullable(),
  users: z.number(),
  agents: z.number(),
  createdAt: z.string(),
  turns: z.number(),
  usageCostUsd: z.number(),
  billedUsd: z.number(),
});
export type BusinessRow = z.infer<typeof BusinessRow>;

/**
 * A page of the agency's businesses, newest first (`limit + 1` rows: the caller tells `hasMore`
 * from the extra one; those before the business `before` when given), each with its staff users,
 * agents in use, and since `monthStart`: chat turns, usage cost on the platform key (`source:
 * system`; a business's own provider key is its own bill) and the amount billed for it, rounded
 * half-up to cents. Every figure is one index range per listed business (the turns by
 * organization and start, the day rollup's primary key), whatever the agency's history.
 *
 * The billed amount is the agency's bill line of the month so far (sql/billing.ts, docs/billing.md):
 * the plan's current price plus the usage cost times (100 + markup) / 100, each rounded half-up to
 * cents, summed.
 */
export function listBusinessesOfAgency(
  db: CommonQueryMethods,
  agencyId: string,
  page: { limit: number; before: string | undefined; monthStart: Date; only?: string },
) {
  const before =
    page.before === undefined
      ? sql.fragment``
      : sql.fragment`AND (b.created_at, b.id) < (SELECT created_at, id FROM organizations WHERE id = ${page.before} AND parent_id = ${agencyId})`;
  const only = page.only === undefined ? sql.fragment`` : sql.fragment`AND b.id = ${page.only}`;
  const since = sql.timestamp(page.monthStart);
  return db.any(sql.type(BusinessRow)`
    WITH page AS (
      SELECT b.id, b.name, b.created_at FROM organizations b
      WHERE b.parent_id = ${agencyId} AND b.type = 'BUSINESS' ${before} ${only}
      ORDER BY b.created_at DESC, b.id DESC
      LIMIT ${page.limit + 1}
    ), figures AS (
      SELECT p.*, pl.id AS plan_id, pl.name AS plan_name,
        coalesce(pr.price_cents, 0) AS price_cents, coalesce(pr.usage_markup_percent, 0) AS markup,
        (SELECT count(*)::int FROM users u WHERE u.organization_id = p.id AND u.type = 'user') AS users,
        (SELECT count(*)::int FROM agents a WHERE a.organization_id = p.id AND a.archived_at IS NULL) AS agents,
        (SELECT count(*)::int FROM chat_turns t WHERE t.organization_id = p.id AND t.started_at >= ${since}) AS turns,
        (SELECT coalesce(sum(d.cost_usd), 0) FROM usage_rollup_day d
          WHERE d.organization_id = p.id AND d.day >= ${since} AND d.source = 'system') AS cost
      FROM page p
      JOIN organizations o ON o.id = p.id
      LEFT JOIN plans pl ON pl.id = o.plan_id
      LEFT JOIN LATERAL (
        SELECT price_cents, usage_markup_percent FROM plan_prices
        WHERE plan_id = pl.id AND starts_at <= now()
        ORDER BY starts_at DESC, id DESC LIMIT 1) pr ON true
    )
    SELECT id, name, CASE WHEN plan_id IS NULL THEN NULL ELSE json_build_object('id', plan_id, 'name', plan_name) END AS plan,
           users, agents, created_at AS "createdAt", turns, cost::float8 AS "usageCostUsd",
           ((price_cents + round(cost * (100 + markup) / 100, 2) * 100) / 100)::float8 AS "billedUsd"
    FROM figures
    ORDER BY created_at DESC, id DESC`);
}

/** Whether `organizationId` is the agency itself or one of its businesses (where the agency's staff may put things). */
export function isAgencyOrItsBusiness(db: CommonQueryMethods, agencyId: string, organizationId: string) {
  return db.oneFirst(sql.type(PresentRow)`
    SELECT EXISTS (
      SELECT 1 FROM organizations
      WHERE id = ${organizationId} AND type <> 'PLATFORM' AND (id = ${agencyId} OR (parent_id = ${agencyId} AND type = 'BUSINESS'))
    ) AS present`);
}

const PlanRef = z.strictObject({ id: z.string(), name: z.string() });

/** The agency's active plan with this id (any, public or not), or null. */
export function findActivePlanOfAgency(db: CommonQueryMethods, agencyId: string, planId: string) {
  return db.maybeOne(sql.type(PlanRef)`
    SELECT id, name FROM plans WHERE id = ${planId} AND organization_id = ${agencyId} AND is_active`);
}
