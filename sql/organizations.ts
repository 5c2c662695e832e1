import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const organizationType = z.enum(['AGENCY', 'BUSINESS', 'PLATFORM']);

const Organization = z.strictObject({
  id: z.string(),
  name: z.string(),
  type: organizationType,
  parentId: z.string().nullable(),
  allowBusinessRegistration: z.boolean(),
  userCapacity: z.number().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Organization = z.infer<typeof Organization>;

const columns = sql.fragment`
  id, name, type, parent_id AS "parentId", allow_business_registration AS "allowBusinessRegistration",
  user_capacity AS "userCapacity", created_at AS "createdAt", updated_at AS "updatedAt"`;

export function findOrganization(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(Organization)`SELECT ${columns} FROM organizations WHERE id = ${id}`);
}

/**
 * Locks the organization row until the transaction ends. Guard 1, Guard 2, plan creation and
 * business registration all take this lock first, so the invariant "flag on implies at least
 * one active public plan" is checked and changed by one transaction at a time per agency
 * (docs/identity.md, "Decisions", was ADR 0010).
 */
export function lockOrganization(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(Organization)`SELECT ${columns} FROM organizations WHERE id = ${id} FOR UPDATE`);
}

const OpenRow = z.strictObject({ open: z.boolean() });

/** True only for an existing AGENCY whose `allow_business_registration` flag is on. */
export function isAgencyOpenForBusinessRegistration(db: CommonQueryMethods, organizationId: string) {
  return db.oneFirst(sql.type(OpenRow)`
    SELECT EXISTS (
      SELECT 1 FROM organizations
      WHERE id = ${organizationId} AND type = 'AGENCY' AND allow_business_registration
    ) AS open`);
}

export function updateOrganization(
  db: CommonQueryMethods,
  id: string,
  change: { name?: string | undefined; allowBusinessRegistration?: boolean | undefined },
) {
  return db.one(sql.type(Organization)`
    UPDATE organizations
    SET name = COALESCE(${change.name ?? null}::text, name),
        allow_business_registration = COALESCE(${change.allowBusinessRegistration ?? null}::boolean, allow_business_registration),
        updated_at = now()
    WHERE id = ${id}
    RETURNING ${columns}`);
}

export function insertOrganization(
  db: CommonQueryMethods,
  organization: { id: string; name: string; type: 'AGENCY' | 'BUSINESS'; parentId: string | null },
) {
  return db.query(sql.unsafe`
    INSERT INTO organizations (id, name, type, parent_id)
    VALUES (${organization.id}, ${organization.name}, ${organization.type}, ${organization.parentId})`);
}
