import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const GrantedRow = z.strictObject({ granted: z.boolean() });

/** Does one of the user's roles grant `action` on `subject`? */
export async function userHasPermission(db: CommonQueryMethods, userId: string, subject: string, action: string): Promise<boolean> {
  return db.oneFirst(sql.type(GrantedRow)`
    SELECT EXISTS (
      SELECT 1
      FROM user_roles ur
      JOIN role_permissions rp ON rp.role_id = ur.role_id
      WHERE ur.user_id = ${userId} AND rp.subject = ${subject} AND rp.action = ${action}
    ) AS granted`);
}

const AccessRow = z.strictObject({ granted: z.boolean(), acting: z.boolean() });
export type Access = z.infer<typeof AccessRow>;

/**
 * What a request may do, in one statement (app/core/auth.ts): null when the user no longer exists
 * in the organization its token names (removed: the token is refused); else `granted` (one of the
 * user's roles grants one of `grants`; true when none is asked) and `acting` (the user may act in
 * `actingOrganizationId`: its own organization, or, for a `user` of an AGENCY, one of that
 * agency's BUSINESS organizations).
 */
export function findAccess(
  db: CommonQueryMethods,
  request: {
    userId: string;
    organizationId: string;
    actingOrganizationId: string;
    grants: ReadonlyArray<{ subject: string; action: string }>;
  },
): Promise<Access | null> {
  const subjects = request.grants.map((grant) => grant.subject);
  const actions = request.grants.map((grant) => grant.action);
  return db.maybeOne(sql.type(AccessRow)`
    SELECT
      (cardinality(${sql.array(subjects, 'text')}) = 0 OR EXISTS (
        SELECT 1
        FROM user_roles ur
        JOIN role_permissions rp ON rp.role_id = ur.role_id
        JOIN unnest(${sql.array(subjects, 'text')}, ${sql.array(actions, 'text')}) AS asked (subject, action)
          ON asked.subject = rp.subject AND asked.action = rp.action
        WHERE ur.user_id = u.id
      )) AS granted,
      (u.organization_id = ${request.actingOrganizationId} OR (u.type = 'user' AND EXISTS (
        SELECT 1
        FROM organizations business
        JOIN organizations agency ON agency.id = business.parent_id
        WHERE business.id = ${request.actingOrganizationId} AND business.type = 'BUSINESS'
          AND agency.id = u.organization_id AND agency.type = 'AGENCY'
      ))) AS acting
    FROM users u
    WHERE u.id = ${request.userId} AND u.organization_id = ${request.organizationId}`);
}
