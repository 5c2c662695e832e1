import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/*
 * The plan a business is on (organizations.plan_id) and the history of its plans
 * (business_plan_periods, migration 1220): both written by `putBusinessOnPlan`, the one writer.
 */

/**
 * Puts the business on the plan from `now`: its current plan and a new period of its history, in
 * the caller's transaction. The one function that sets a business's plan (registration, the
 * agency's move, a business the agency creates).
 */
export async function putBusinessOnPlan(tx: CommonQueryMethods, businessId: string, planId: string, now: Date): Promise<void> {
  await tx.query(sql.unsafe`
    WITH moved AS (UPDATE organizations SET plan_id = ${planId}, updated_at = ${sql.timestamp(now)}
                   WHERE id = ${businessId} AND type = 'BUSINESS' RETURNING id)
    INSERT INTO business_plan_periods (organization_id, plan_id, starts_at)
    SELECT id, ${planId}, ${sql.timestamp(now)} FROM moved`);
}

const PlanSummary = z.strictObject({
  id: z.string(),
  name: z.string(),
  priceCents: z.number(),
  limits: z.strictObject({
    maxAgents: z.number().nullable(),
    maxUsers: z.number().nullable(),
    maxEndUserMessagesPerMonth: z.number().nullable(),
    maxDocumentsMb: z.number().nullable(),
    monthlyUsageUsd: z.number().nullable(),
  }),
});

/** The plan the organization is on now, as its own users see it (no markup); null for none. */
export function findPlanOfBusiness(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(PlanSummary)`
    SELECT p.id, p.name, p.price_cents AS "priceCents",
           json_build_object('maxAgents', p.max_agents, 'maxUsers', p.max_users,
             'maxEndUserMessagesPerMonth', p.max_end_user_messages_per_month, 'maxDocumentsMb', p.max_documents_mb,
             'monthlyUsageUsd', p.monthly_usage_usd::float8) AS limits
    FROM organizations o JOIN plans p ON p.id = o.plan_id
    WHERE o.id = ${organizationId}`);
}

const BusinessRow = z.strictObject({ id: z.string(), parentId: z.string() });

/** The agency's business with this id, its row locked for the caller's transaction; null for none. */
export function lockBusinessOfAgency(tx: CommonQueryMethods, agencyId: string, businessId: string) {
  return tx.maybeOne(sql.type(BusinessRow)`
    SELECT id, parent_id AS "parentId" FROM organizations
    WHERE id = ${businessId} AND parent_id = ${agencyId} AND type = 'BUSINESS'
    FOR NO KEY UPDATE`);
}
