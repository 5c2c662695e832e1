import { createHmac, randomBytes } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import {
  countLiveUserInvitations,
  insertInvitation,
  lockInvitationByCode,
  markInvitationAccepted,
  type Invitation,
  type InvitationRole,
} from '../../sql/invitations.ts';
import { findOrganization, lockOrganization, type Organization } from '../../sql/organizations.ts';
import { findRoleIdByName, grantRole, insertPrincipal, isEmailTaken } from '../../sql/principals.ts';
import { findAgencySeats } from '../../sql/subscriptions.ts';
import { deriveKey } from '../core/derived-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import type { PrincipalType } from '../core/route.ts';
import { emailTaken, invitationInvalid } from './errors.ts';
import { hashPassword } from './passwords.ts';
import { outboxTransport } from '../notifications/outbox-transport.ts';
import { userLimitReached } from '../subscriptions/errors.ts';
import { organizationNotFound } from '../organization/errors.ts';

/** An invitation's code works for 7 days, once. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** 32 random bytes: 43 URL-safe characters (base64url), 256 bits. */
const CODE_BYTES = 32;

/** The role a user invited as `owner` or `member` receives, by the type of the organization (migrations 0100, 1201). */
const ROLE_NAMES: Record<'AGENCY' | 'BUSINESS', Record<'owner' | 'member', string>> = {
  AGENCY: { owner: 'agency-owner', member: 'agency-member' },
  BUSINESS: { owner: 'business-owner', member: 'business-member' },
};

/** The principal type an invitation makes: a client for `client`, else a user (staff). */
export const principalTypeOf = (role: InvitationRole): PrincipalType => (role === 'client' ? 'client' : 'user');

/**
 * Codes are stored as an HMAC under a key derived from the service secret: the table alone
 * (a backup, a read replica) gives no working code.
 */
const hashInvitationCode = (secret: string, code: string) =>
  createHmac('sha256', deriveKey(secret, 'invitation-code-v1')).update(code).digest();

/** A JSON-quoted value in a mail: quotes and control characters stay escaped. */
const quoted = (text: string) => JSON.stringify(text);

/**
 * The seats check of an invitation of a user (owner or member) into `organization`: the agency's
 * user capacity counts its principals and its businesses', and the live user invitations other
 * than to this address (409 `SUBSCRIPTION.USER_LIMIT_REACHED`). Runs under the agency row's lock,
 * which business registration and acceptance take too, so concurrent invitations count exactly.
 *
 * Seam: a business's plan's `maxUsers` (409 `PLANS.LIMIT_REACHED`) is checked here too once a
 * business has a plan (the plans-and-limits work); on this branch a business has none.
 */
async function checkSeats(deps: AppDeps, tx: CommonQueryMethods, organization: Organization, email: string): Promise<void> {
  const agencyId = organization.parentId ?? organization.id;
  await lockOrganization(tx, agencyId);
  const seats = await findAgencySeats(tx, agencyId);
  if (!seats || seats.capacity === null) return;
  const promised = await countLiveUserInvitations(tx, agencyId, deps.clock(), email);
  if (seats.used + promised >= seats.capacity) throw userLimitReached();
}

/**
 * Invites `email` into the organization as `role` (`POST /organization/my/invitations`): records
 * the invitation (superseding the address's older live one) and queues one email carrying the code
 * in a link to the console's accept page, in one transaction. An address that already has an
 * account of that principal type is 409 `IDENTITY.EMAIL_TAKEN` (an address holds one account per type).
 */
export async function inviteMember(
  deps: AppDeps,
  tx: CommonQueryMethods,
  invitation: { organizationId: string; email: string; role: InvitationRole; invitedBy: string; name?: string },
): Promise<Invitation> {
  const organization = await findOrganization(tx, invitation.organizationId);
  if (!organization || organization.type === 'PLATFORM') throw organizationNotFound();
  const email = invitation.email.toLowerCase();
  const type = principalTypeOf(invitation.role);
  if (type === 'user') await checkSeats(deps, tx, organization, email);
  if (await isEmailTaken(tx, type, email)) throw emailTaken();
  const code = randomBytes(CODE_BYTES).toString('base64url');
  const now = deps.clock();
  const created = await insertInvitation(tx, {
    id: uuidv7(),
    organizationId: organization.id,
    email,
    role: invitation.role,
    codeHash: hashInvitationCode(deps.config.jwtSecret, code),
    invitedBy: invitation.invitedBy,
    now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  const link = `${deps.config.publicBaseUrl}/dashboard/#/accept-invitation?type=${type}&email=${encodeURIComponent(email)}&invitation=${code}`;
  const as = invitation.role === 'client' ? 'a client' : `${invitation.role === 'owner' ? 'an owner' : 'a member'} of its staff`;
  await outboxTransport(deps).send(tx, {
    channel: 'email',
    to: email,
    template: 'organization-invitation',
    subject: 'You are invited to an organization',
    text: [
      ...(invitation.name === undefined ? [] : [`Hello ${quoted(invitation.name)},`, '']),
      `You are invited to join the organization ${quoted(organization.name)} as ${as}.`,
      `Accept within ${INVITATION_TTL_MS / 86_400_000} days, choosing your password, at: ${link}`,
      'If you did not expect this invitation, ignore this message: nothing happens without you.',
    ].join('\n'),
  });
  return created;
}

export type Accepted = { userId: string; organizationId: string; email: string };

/**
 * Accepts an invitation (`POST /identity/auth/{user,client}/accept-invitation`): makes the
 * principal (its email verified: the code came to that mailbox) in the invitation's organization
 * with the role the invitation names, and uses the code up, in one transaction. A wrong, used,
 * superseded or expired code, one for another address or for the other principal type, are one
 * answer (400 `IDENTITY.INVITATION_INVALID`); a user still needs a seat (409
 * `SUBSCRIPTION.USER_LIMIT_REACHED`), and a taken address is 409 `IDENTITY.EMAIL_TAKEN` (the code stays usable).
 */
export async function acceptInvitation(
  deps: AppDeps,
  type: PrincipalType,
  body: { email: string; code: string; password: string; name: string },
): Promise<Accepted> {
  const passwordHash = await hashPassword(body.password);
  const email = body.email.toLowerCase();
  return deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const invitation = await lockInvitationByCode(tx, hashInvitationCode(deps.config.jwtSecret, body.code), now);
    if (!invitation || !invitation.live || invitation.email !== email || principalTypeOf(invitation.role) !== type) {
      throw invitationInvalid();
    }
    if (invitation.organizationType === 'PLATFORM') throw invitationInvalid();
    if (type === 'user') {
      await lockOrganization(tx, invitation.agencyId);
      const seats = await findAgencySeats(tx, invitation.agencyId);
      if (seats && seats.capacity !== null && seats.used >= seats.capacity) throw userLimitReached();
    }
    const userId = uuidv7();
    const inserted = await insertPrincipal(tx, {
      id: userId,
      organizationId: invitation.organizationId,
      type,
      email,
      name: body.name,
      passwordHash,
      emailVerified: true,
    });
    if (!inserted) throw emailTaken();
    if (invitation.role !== 'client') {
      const roleId = await findRoleIdByName(tx, ROLE_NAMES[invitation.organizationType][invitation.role]);
      if (roleId) await grantRole(tx, userId, roleId);
    }
    await markInvitationAccepted(tx, invitation.id, userId, now);
    return { userId, organizationId: invitation.organizationId, email };
  });
}
