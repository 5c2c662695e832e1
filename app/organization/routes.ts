import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { StrictObject } from '../core/schemas.ts';
import { OrganizationSchema } from './schemas.ts';
import { getMyOrganization, updateMyOrganization } from './my-organization.ts';
import { ORGANIZATION_NO_ACTIVE_PUBLIC_PLAN, ORGANIZATION_NOT_AN_AGENCY, ORGANIZATION_NOT_FOUND } from './errors.ts';

const UpdateOrganizationBody = StrictObject({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  allowBusinessRegistration: Type.Optional(Type.Boolean()),
  allowClientRegistration: Type.Optional(Type.Boolean()),
});

export const organizationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/organization/my',
    summary: "The acting organization (`x-org-id`, else the caller's own)",
    tags: ['organization'],
    auth: 'jwt',
    policy: { subject: 'organization', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    errors: [ORGANIZATION_NOT_FOUND],
    responses: { 200: { description: 'Organization', schema: OrganizationSchema } },
    handler: ({ deps, scope }) => getMyOrganization(deps, scope.organizationId),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/organization/my',
    summary: 'Rename the acting organization or switch business or client self-registration',
    description:
      'Guard 1: turning allowBusinessRegistration on without an active public plan answers 409 ' +
      'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN; only an AGENCY can turn it on (409 ORGANIZATION.NOT_AN_AGENCY). ' +
      'allowClientRegistration (default false) lets anyone register as a client of the organization.',
    tags: ['organization'],
    auth: 'jwt',
    policy: { subject: 'organization', action: 'update' },
    scope: ORGANIZATION_SCOPE,
    schemas: { body: UpdateOrganizationBody },
    errors: [ORGANIZATION_NOT_FOUND, ORGANIZATION_NO_ACTIVE_PUBLIC_PLAN, ORGANIZATION_NOT_AN_AGENCY],
    responses: {
      200: { description: 'Updated organization', schema: OrganizationSchema },
    },
    handler: ({ deps, scope, body }) => updateMyOrganization(deps, scope.organizationId, body),
  }),
];
