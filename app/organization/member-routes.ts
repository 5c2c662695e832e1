import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { ORGANIZATION_LAST_OWNER, ORGANIZATION_MEMBER_NOT_FOUND } from './errors.ts';
import { MemberList, MemberParams, MemberQuery } from './member-schemas.ts';
import { membersPage, removeMember } from './members.ts';

const tags = ['organization'];

/** The people of the acting organization (docs/identity.md, "Members and invitations"); inviting them: app/identity/invitation-routes.ts. */
export const memberRoutes = [
  defineRoute({
    method: 'GET',
    path: '/organization/my/members',
    summary: "The acting organization's members (users and clients), newest first",
    description: '`limit` 1-200 (default 100); `before`: the userId of the last member of the page before.',
    tags,
    auth: 'jwt',
    policy: { subject: 'organization.member', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    schemas: { query: MemberQuery },
    responses: { 200: { description: 'A page of members', schema: MemberList } },
    handler: ({ deps, scope, query }) => membersPage(deps, scope.organizationId, query),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/organization/my/members/:userId',
    summary: 'Remove a member from the acting organization',
    description:
      "The member's account is deleted: its next request is 401 and it can no longer sign in. The last owner stays " +
      '(409 ORGANIZATION.LAST_OWNER); anyone not in the organization is 404 ORGANIZATION.MEMBER_NOT_FOUND.',
    tags,
    auth: 'jwt',
    policy: { subject: 'organization.member', action: 'delete' },
    scope: ORGANIZATION_SCOPE,
    schemas: { params: MemberParams },
    status: 204,
    errors: [ORGANIZATION_MEMBER_NOT_FOUND, ORGANIZATION_LAST_OWNER],
    responses: { 204: { description: 'Removed' } },
    handler: ({ deps, scope, params }) => removeMember(deps, scope.organizationId, params.userId),
  }),
];
