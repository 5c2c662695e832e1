import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow } from './rows.ts';

/* Invitations into an organization (migration 1250, docs/identity.md "Members and invitations"). */

export type InvitationRole = 'owner' | 'member' | 'client';

const Invitation = z.strictObject({
  id: z.string(),
  email: z.string(),
  role: z.enum(['owner', 'member', 'client']),
  expiresAt: z.string(),
});
export type Invitation = z.infer<typeof Invitation>;

/**
 * Records an invitation, superseding the live ones of the same address in the organization (one
 * live invitation per address: an older link stops working, and the capacity counts it once).
 */
export async function insertInvitation(
  db: CommonQueryMethods,
  invitation: {
    id: string;
    organizationId: string;
    email: string;
    role: InvitationRole;
    codeHash: Buffer;
    invitedBy: string | null;
    now: Date;
    expiresAt: Date;
  },
): Promise<Invitation> {
  await db.query(sql.unsafe`
    UPDATE invitations SET superseded_at = ${sql.timestamp(invitation.now)}
    WHERE organization_id = ${invitation.organizationId} AND email = ${invitation.email}
      AND accepted_at IS NULL AND superseded_at IS NULL`);
  return db.one(sql.type(Invitation)`
    INSERT INTO invitations (id, organization_id, email, role, code_hash, invited_by, created_at, expires_at)
    VALUES (${invitation.id}, ${invitation.organizationId}, ${invitation.email}, ${invitation.role},
            ${sql.binary(invitation.codeHash)}, ${invitation.invitedBy}, ${sql.timestamp(invitation.now)},
            ${sql.timestamp(invitation.expiresAt)})
    RETURNING id, email, role, expires_at AS "expiresAt"`);
}

/**
 * Live invitations of users (owners and members, not clients) into the agency or any of its
 * businesses, other than to `exceptEmail` (which the caller's new invitation supersedes): seats
 * promised that the user capacity counts beside the users.
 */
export function countLiveUserInvitations(db: CommonQueryMethods, agencyId: string, now: Date, exceptEmail: string) {
  return db.oneFirst(sql.type(CountRow)`
    SELECT count(*)::int AS n
    FROM invitations i
    JOIN organizations o ON o.id = i.organization_id
    WHERE (o.id = ${agencyId} OR o.parent_id = ${agencyId})
      AND i.role <> 'client' AND i.accepted_at IS NULL AND i.superseded_at IS NULL
      AND i.expires_at > ${sql.timestamp(now)} AND i.email <> ${exceptEmail}`);
}

const Claimable = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  organizationType: z.enum(['AGENCY', 'BUSINESS', 'PLATFORM']),
  agencyId: z.string(),
  email: z.string(),
  role: z.enum(['owner', 'member', 'client']),
  live: z.boolean(),
});

/**
 * The invitation whose code hashes to `codeHash`, locked until the transaction ends (of two
 * acceptances at once the second waits, then finds it accepted), with its organization and that
 * organization's agency (itself for an agency). `live`: not accepted, not superseded, not expired at `now`.
 */
export function lockInvitationByCode(db: CommonQueryMethods, codeHash: Buffer, now: Date) {
  return db.maybeOne(sql.type(Claimable)`
    SELECT i.id, i.organization_id AS "organizationId", o.type AS "organizationType",
           coalesce(o.parent_id, o.id) AS "agencyId", i.email, i.role,
           (i.accepted_at IS NULL AND i.superseded_at IS NULL AND i.expires_at > ${sql.timestamp(now)}) AS live
    FROM invitations i JOIN organizations o ON o.id = i.organization_id
    WHERE i.code_hash = ${sql.binary(codeHash)}
    FOR UPDATE OF i`);
}

export function markInvitationAccepted(db: CommonQueryMethods, invitationId: string, userId: string, now: Date) {
  return db.query(sql.unsafe`
    UPDATE invitations SET accepted_at = ${sql.timestamp(now)}, accepted_by = ${userId} WHERE id = ${invitationId}`);
}
