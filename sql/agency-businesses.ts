import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PresentRow } from './rows.ts';

/* The businesses an agency serves, as the agency sees them (docs/identity.md, "The agency's clients"). */

const BusinessRow = z.strictObject({
  id: z.string(),
  name: z.string(),
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
 * Seam: the billed amount is the usage cost (no plan price, no markup) until plans carry a price
 * and a usage markup (the plans-and-bill work): then it is price + cost x (1 + markup / 100).
 */
export function listBusinessesOfAgency(
  db: CommonQueryMethods,
  agencyId: string,
  page: { limit: number; before: string | undefined; monthStart: Date },
) {
  const before =
    page.before === undefined
      ? sql.fragment``
      : sql.fragment`AND (b.created_at, b.id) < (SELECT created_at, id FROM organizations WHERE id = ${page.before} AND parent_id = ${agencyId})`;
  const since = sql.timestamp(page.monthStart);
  return db.any(sql.type(BusinessRow)`
    WITH page AS (
      SELECT b.id, b.name, b.created_at FROM organizations b
      WHERE b.parent_id = ${agencyId} AND b.type = 'BUSINESS' ${before}
      ORDER BY b.created_at DESC, b.id DESC
      LIMIT ${page.limit + 1}
    ), figures AS (
      SELECT p.*,
        (SELECT count(*)::int FROM users u WHERE u.organization_id = p.id AND u.type = 'user') AS users,
        (SELECT count(*)::int FROM agents a WHERE a.organization_id = p.id AND a.archived_at IS NULL) AS agents,
        (SELECT count(*)::int FROM chat_turns t WHERE t.organization_id = p.id AND t.started_at >= ${since}) AS turns,
        (SELECT coalesce(sum(d.cost_usd), 0) FROM usage_rollup_day d
          WHERE d.organization_id = p.id AND d.day >= ${since} AND d.source = 'system') AS cost
      FROM page p
    )
    SELECT id, name, users, agents, created_at AS "createdAt", turns,
           cost::float8 AS "usageCostUsd", round(cost, 2)::float8 AS "billedUsd"
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
