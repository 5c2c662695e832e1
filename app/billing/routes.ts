import { Type } from '@sinclair/typebox';
import { BinaryAnswer } from '../core/binary-answer.ts';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { StrictObject, Uuid } from '../core/schemas.ts';
import { OrganizationSchema } from '../organization/schemas.ts';
import { PLANS_PLAN_NOT_AVAILABLE } from '../plans/errors.ts';
import { agencyBill, billCsv } from './bill.ts';
import { moveBusinessToPlan, requireAgency } from './business-plan.ts';
import { AGENCY_BUSINESS_NOT_FOUND } from './errors.ts';

const tags = ['billing'];

const Money = Type.Number({ description: 'USD, rounded half-up to cents' });

const BillLineSchema = Type.Object({
  businessId: Uuid(),
  businessName: Type.String(),
  planId: Type.Union([Uuid(), Type.Null()]),
  planName: Type.Union([Type.String(), Type.Null()]),
  planPriceUsd: Money,
  usageCostUsd: Money,
  usageMarkupPercent: Type.Integer(),
  usageBilledUsd: Money,
  totalUsd: Money,
});

const BillSchema = Type.Object({
  month: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$' }),
  final: Type.Boolean({ description: 'false while the month runs' }),
  currency: Type.Literal('USD'),
  lines: Type.Array(BillLineSchema),
  totals: Type.Object({ planPriceUsd: Money, usageCostUsd: Money, usageBilledUsd: Money, totalUsd: Money }),
});

const BillQuery = StrictObject({
  month: Type.Optional(
    Type.String({
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$',
      errorMessage: 'must be a month as YYYY-MM',
      description: 'default: the current UTC month',
    }),
  ),
});

/** The agency's routes of plans and the bill (docs/billing.md); they act in the acting organization, which must be an AGENCY. */
export const billingRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/agency/businesses/:businessId/plan',
    summary: "Move one of the agency's businesses to another of its plans",
    description:
      'Any active plan of the acting agency, public or not (409 PLANS.PLAN_NOT_AVAILABLE otherwise); a business of another ' +
      "agency is 404 AGENCY.BUSINESS_NOT_FOUND; a non-agency acting organization is 403. The plan's limits hold from the " +
      'next request; the bill of a month uses the plan the business is on when the month ends.',
    tags,
    auth: 'jwt',
    policy: { subject: 'plan', action: 'update' },
    scope: ORGANIZATION_SCOPE,
    schemas: { params: StrictObject({ businessId: Uuid() }), body: StrictObject({ planId: Uuid() }) },
    errors: [AGENCY_BUSINESS_NOT_FOUND, PLANS_PLAN_NOT_AVAILABLE],
    responses: { 200: { description: 'The business, on its new plan', schema: OrganizationSchema } },
    handler: ({ deps, scope, params, body }) => moveBusinessToPlan(deps, scope.organizationId, params.businessId, body.planId),
  }),
  defineRoute({
    method: 'GET',
    path: '/agency/billing',
    summary: "The agency's bill of a UTC month: per business, plan price, usage cost, markup and total",
    description:
      'Usage is the platform-key cost of the UTC month (BYOK usage is never billed); every amount of a line is rounded ' +
      'half-up to cents and the totals are sums of the rounded lines; `final` is false while the month runs. ' +
      '`Accept: text/csv` answers the lines as CSV (RFC 4180) with a header row of the field names. docs/billing.md.',
    tags,
    auth: 'jwt',
    policy: { subject: 'plan', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    schemas: { query: BillQuery },
    responses: {
      200: { description: 'The bill (JSON, or CSV when asked for)', schema: BillSchema },
    },
    handler: async ({ deps, ctx, scope, query }) => {
      await requireAgency(deps, scope.organizationId);
      const bill = await agencyBill(deps, scope.organizationId, query.month);
      ctx.vary('Accept');
      if (ctx.accepts('application/json', 'text/csv') !== 'text/csv') return bill;
      ctx.set('Content-Disposition', `attachment; filename="bill-${bill.month}.csv"`);
      return new BinaryAnswer('text/csv; charset=utf-8', Buffer.from(billCsv(bill), 'utf8'));
    },
  }),
];
