import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { IDENTITY_EMAIL_TAKEN } from '../identity/errors.ts';
import { ORGANIZATION_NOT_AN_AGENCY } from '../organization/errors.ts';
import { PLANS_PLAN_NOT_AVAILABLE } from '../plans/errors.ts';
import { SUBSCRIPTION_USER_LIMIT_REACHED } from '../subscriptions/errors.ts';
import { businessesPage, createBusiness } from './businesses.ts';
import { BusinessList, BusinessQuery, CreateBusinessBody, CreatedBusiness } from './schemas.ts';

const tags = ['organization'];

/** The businesses an agency serves: its client workspaces (docs/identity.md, "The agency's clients"). */
export const agencyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/agency/businesses',
    summary: "The acting agency's businesses, newest first, with this month's figures",
    description:
      '`limit` 1-100 (default 50); `before`: the id of the last business of the page before. In a business: 409 ORGANIZATION.NOT_AN_AGENCY.',
    tags,
    auth: 'jwt',
    policy: { subject: 'organization', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    schemas: { query: BusinessQuery },
    errors: [ORGANIZATION_NOT_AN_AGENCY],
    responses: { 200: { description: 'A page of businesses', schema: BusinessList } },
    handler: ({ deps, scope, query }) => businessesPage(deps, scope.organizationId, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/agency/businesses',
    // Each new workspace mails its owner's invitation: like invitations, 20 a minute per organization.
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'organization', source: 'project' },
    summary: 'Make a client workspace (a business under the acting agency) and invite its owner',
    description:
      'Not gated by allowBusinessRegistration (which gates self-registration). planId: an active plan of the agency (409 ' +
      "PLANS.PLAN_NOT_AVAILABLE). The owner's invitation counts against the agency's user capacity (409 " +
      'SUBSCRIPTION.USER_LIMIT_REACHED) and an address with a user account is 409 IDENTITY.EMAIL_TAKEN; either way nothing is made.',
    tags,
    auth: 'jwt',
    policy: { subject: 'organization.member', action: 'create' },
    scope: ORGANIZATION_SCOPE,
    schemas: { body: CreateBusinessBody },
    status: 201,
    idempotent: true,
    errors: [ORGANIZATION_NOT_AN_AGENCY, PLANS_PLAN_NOT_AVAILABLE, SUBSCRIPTION_USER_LIMIT_REACHED, IDENTITY_EMAIL_TAKEN],
    responses: { 201: { description: 'The business and its owner invitation', schema: CreatedBusiness } },
    handler: ({ deps, scope, body }) => createBusiness(deps, scope.organizationId, scope.userId, body),
  }),
];
