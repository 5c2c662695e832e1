import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { ORGANIZATION_NOT_FOUND } from '../organization/errors.ts';
import { PLANS_LIMIT_REACHED } from '../plans/errors.ts';
import { SUBSCRIPTION_USER_LIMIT_REACHED } from '../subscriptions/errors.ts';
import { Accepted, AcceptInvitationBody, InvitationBody, InvitationSchema } from './invitation-schemas.ts';
import { acceptInvitation, inviteMember } from './invitations.ts';
import { IDENTITY_EMAIL_TAKEN, IDENTITY_INVITATION_INVALID } from './errors.ts';
import { principalIn, type PrincipalPath } from './principal-path.ts';

const acceptRoute = (path: PrincipalPath<'accept-invitation'>, type = principalIn(path)) =>
  defineRoute({
    method: 'POST',
    path,
    // Makes an account, like register (5 per 15 minutes per address).
    rateLimit: { limit: 5, windowMs: '15m', identifierType: 'ip', source: 'project' },
    summary: `Accept an invitation: become a ${type} of the organization that invited the email`,
    description:
      'The email is verified by the code. A wrong, used, superseded or expired code, or one sent to another address ' +
      `or for another principal type, is 400 IDENTITY.INVITATION_INVALID (one answer for all).` +
      (type === 'user'
        ? " A user needs a seat of the agency (409 SUBSCRIPTION.USER_LIMIT_REACHED) and, in a business, room in its plan's maxUsers (409 PLANS.LIMIT_REACHED)."
        : ''),
    tags: ['identity'],
    auth: 'public',
    schemas: { body: AcceptInvitationBody },
    status: 201,
    errors: [
      IDENTITY_INVITATION_INVALID,
      IDENTITY_EMAIL_TAKEN,
      ...(type === 'user' ? [SUBSCRIPTION_USER_LIMIT_REACHED, PLANS_LIMIT_REACHED] : []),
    ],
    responses: { 201: { description: 'Account made in the organization; sign in with the password', schema: Accepted } },
    handler: ({ deps, body }) => acceptInvitation(deps, type, body),
  });

/** Accepting an invitation (docs/identity.md, "Members and invitations"). */
export const acceptInvitationRoutes = [
  acceptRoute('/identity/auth/user/accept-invitation'),
  acceptRoute('/identity/auth/client/accept-invitation'),
];

/** Inviting someone into the acting organization (mounted with the organization's routes). */
export const invitationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/organization/my/invitations',
    // Each invitation mails an address the caller chose: 20 a minute per organization of the caller.
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'organization', source: 'project' },
    summary: 'Invite someone into the acting organization as an owner, a member or a client',
    description:
      'One email carries a single-use code (43 URL-safe characters, valid 7 days) in a link to the console; a newer ' +
      "invitation of the same address supersedes the older. An owner or member counts against the agency's user capacity " +
      '(users of the agency and its businesses, and live invitations of users): 409 SUBSCRIPTION.USER_LIMIT_REACHED; in a ' +
      "business also against its plan's maxUsers: 409 PLANS.LIMIT_REACHED. " +
      'An address that already has an account of that type (user for owner and member, client) is 409 IDENTITY.EMAIL_TAKEN.',
    tags: ['organization'],
    auth: 'jwt',
    policy: { subject: 'organization.member', action: 'create' },
    scope: ORGANIZATION_SCOPE,
    schemas: { body: InvitationBody },
    status: 201,
    errors: [ORGANIZATION_NOT_FOUND, SUBSCRIPTION_USER_LIMIT_REACHED, PLANS_LIMIT_REACHED, IDENTITY_EMAIL_TAKEN],
    responses: { 201: { description: 'Invited; the email is queued', schema: InvitationSchema } },
    handler: ({ deps, scope, body }) =>
      deps.db.transaction((tx) =>
        inviteMember(deps, tx, { organizationId: scope.organizationId, email: body.email, role: body.role, invitedBy: scope.userId }),
      ),
  }),
];
