import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PresentRow } from './rows.ts';

const Plan = z.strictObject({
  id: z.string(),
  name: z.string(),
  isPublic: z.boolean(),
  isActive: z.boolean(),
  maxUsers: z.number().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Plan = z.infer<typeof Plan>;

const columns = sql.fragment`
  id, name, is_public AS "isPublic", is_active AS "isActive", max_users AS "maxUsers",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Does the agency offer at least one plan that is both active and public? */
export function agencyHasActivePublicPlan(db: CommonQueryMethods, organizationId: string) {
  return db.oneFirst(sql.type(PresentRow)`
    SELECT EXISTS (
      SELECT 1 FROM plans WHERE organization_id = ${organizationId} AND is_active AND is_public
    ) AS present`);
}

export function listPlansOfOrganization(db: CommonQueryMethods, organizationId: string) {
  return db.any(sql.type(Plan)`
    SELECT ${columns} FROM plans WHERE organization_id = ${organizationId} ORDER BY created_at, id`);
}

export function insertPlan(
  db: CommonQueryMethods,
  plan: { id: string; organizationId: string; name: string; isPublic: boolean; isActive: boolean; maxUsers: number | null },
) {
  return db.one(sql.type(Plan)`
    INSERT INTO plans (id, organization_id, name, is_public, is_active, max_users)
    VALUES (${plan.id}, ${plan.organizationId}, ${plan.name}, ${plan.isPublic}, ${plan.isActive}, ${plan.maxUsers})
    RETURNING ${columns}`);
}

/** Changes a plan of this agency; none when the plan is missing or belongs to another agency. */
export function updatePlanOfOrganization(
  db: CommonQueryMethods,
  organizationId: string,
  planId: string,
  change: { name?: string | undefined; isPublic?: boolean | undefined; isActive?: boolean | undefined },
) {
  return db.maybeOne(sql.type(Plan)`
    UPDATE plans
    SET name = COALESCE(${change.name ?? null}::text, name),
        is_public = COALESCE(${change.isPublic ?? null}::boolean, is_public),
        is_active = COALESCE(${change.isActive ?? null}::boolean, is_active),
        updated_at = now()
    WHERE id = ${planId} AND organization_id = ${organizationId}
    RETURNING ${columns}`);
}
