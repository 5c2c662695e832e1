import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow, IdRow } from './rows.ts';

/* The people of an organization: its users (staff) and clients (docs/identity.md "Members and invitations"). */

/** The roles that make a user an owner of their organization (migrations 0100 and 1201). */
const OWNER_ROLES = ['agency-owner', 'business-owner'];

/** `owner` for a user holding an owner role, `member` for any other user, `client` for a client. */
const memberRole = sql.fragment`
  CASE WHEN u.type = 'client' THEN 'client'
       WHEN EXISTS (SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id
                    WHERE ur.user_id = u.id AND r.name = ANY(${sql.array(OWNER_ROLES, 'text')})) THEN 'owner'
       ELSE 'member' END`;

const Member = z.strictObject({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(['owner', 'member', 'client']),
  createdAt: z.string(),
});
export type Member = z.infer<typeof Member>;

/**
 * The organization's members, newest first: `limit + 1` rows (the caller tells `hasMore` from the
 * extra one), those before the member `before` when given.
 */
export function listMembers(db: CommonQueryMethods, organizationId: string, page: { limit: number; before: string | undefined }) {
  const before =
    page.before === undefined
      ? sql.fragment``
      : sql.fragment`AND (u.created_at, u.id) < (SELECT created_at, id FROM users WHERE id = ${page.before})`;
  return db.any(sql.type(Member)`
    SELECT u.id AS "userId", u.email, u.name, ${memberRole} AS role, u.created_at AS "createdAt"
    FROM users u
    WHERE u.organization_id = ${organizationId} ${before}
    ORDER BY u.created_at DESC, u.id DESC
    LIMIT ${page.limit + 1}`);
}

const MemberRole = z.strictObject({ role: z.enum(['owner', 'member', 'client']) });

/** The role of the organization's member `userId`, or null when the organization has no such member. */
export function findMemberRole(db: CommonQueryMethods, organizationId: string, userId: string) {
  return db.maybeOneFirst(sql.type(MemberRole)`
    SELECT ${memberRole} AS role FROM users u WHERE u.id = ${userId} AND u.organization_id = ${organizationId}`);
}

/** How many owners the organization has. */
export function countOwners(db: CommonQueryMethods, organizationId: string) {
  return db.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n FROM users u
    WHERE u.organization_id = ${organizationId} AND u.type = 'user' AND EXISTS (
      SELECT 1 FROM user_roles ur JOIN roles r ON r.id = ur.role_id
      WHERE ur.user_id = u.id AND r.name = ANY(${sql.array(OWNER_ROLES, 'text')}))`);
}

/**
 * Deletes the member: its roles, sessions, own console conversations and codes go with it (their
 * foreign keys cascade); what it did for the organization stays (approvals it answered, keys it
 * made, emails its agents sent: those references become null). Its access token is refused from
 * the next request on (`findAccess` finds no user). True when a row was deleted.
 */
export async function deleteMember(db: CommonQueryMethods, organizationId: string, userId: string): Promise<boolean> {
  const deleted = await db.maybeOne(sql.type(IdRow)`
    DELETE FROM users WHERE id = ${userId} AND organization_id = ${organizationId} RETURNING id`);
  return deleted !== null;
}
