import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { UuidParam } from '../core/schemas.ts';
import { CreatePlanBody, PlanSchema, UpdatePlanBody } from './schemas.ts';
import { createPlan, listPlans, updatePlan } from './plan-changes.ts';
import { PLANS_LAST_ACTIVE_PUBLIC_PLAN, PLANS_PLAN_NOT_FOUND } from './errors.ts';

export const planRoutes = [
  defineRoute({
    method: 'GET',
    path: '/plans',
    summary: "The caller's agency's plans, oldest first",
    tags: ['plans'],
    auth: 'jwt',
    policy: { subject: 'plan', action: 'read' },
    responses: { 200: { description: 'Plans', schema: Type.Array(PlanSchema) } },
    handler: ({ deps, auth }) => listPlans(deps, auth),
  }),
  defineRoute({
    method: 'POST',
    path: '/plans',
    summary: 'Create a plan',
    description:
      'priceUsdPerMonth (0-1,000,000, at most 2 decimals, default 0), usageMarkupPercent (0-1,000, default 0) and limits ' +
      '(each a positive number or null: no limit; maxUsers may also be given on its own) as docs/billing.md describes.',
    tags: ['plans'],
    auth: 'jwt',
    policy: { subject: 'plan', action: 'create' },
    schemas: { body: CreatePlanBody },
    status: 201,
    idempotent: true,
    responses: { 201: { description: 'Created plan', schema: PlanSchema } },
    handler: ({ deps, auth, body }) => createPlan(deps, auth, body),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/plans/:planId',
    summary: 'Change a plan: its name, whether it is public or active, its price, markup or limits',
    description:
      'Guard 2: a change that would leave the agency with allowBusinessRegistration on and no active public ' +
      'plan answers 409 PLANS.LAST_ACTIVE_PUBLIC_PLAN. A plan of another agency answers 404 like a missing one. ' +
      'A limit given null is removed; limits not named stay. A new price or markup holds from now: months already ' +
      'over keep the one they had on the bill.',
    tags: ['plans'],
    auth: 'jwt',
    policy: { subject: 'plan', action: 'update' },
    schemas: { params: UuidParam('planId'), body: UpdatePlanBody },
    errors: [PLANS_PLAN_NOT_FOUND, PLANS_LAST_ACTIVE_PUBLIC_PLAN],
    responses: {
      200: { description: 'Updated plan', schema: PlanSchema },
    },
    handler: ({ deps, auth, params, body }) => updatePlan(deps, auth, params.planId, body),
  }),
];
