import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { DateTime, StrictObject, Uuid, UuidParam } from '../core/schemas.ts';
import { createPlan, listPlans, updatePlan } from './plan-changes.ts';
import { PLANS_LAST_ACTIVE_PUBLIC_PLAN, PLANS_PLAN_NOT_FOUND } from './errors.ts';

const PlanSchema = Type.Object({
  id: Uuid(),
  name: Type.String(),
  isPublic: Type.Boolean(),
  isActive: Type.Boolean(),
  maxUsers: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

const PlanName = Type.String({ minLength: 1, maxLength: 200 });

const CreatePlanBody = StrictObject({
  name: PlanName,
  isPublic: Type.Boolean(),
  isActive: Type.Boolean(),
  maxUsers: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});

const UpdatePlanBody = StrictObject({
  name: Type.Optional(PlanName),
  isPublic: Type.Optional(Type.Boolean()),
  isActive: Type.Optional(Type.Boolean()),
});

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
    summary: 'Rename a plan, or change whether it is public or active',
    description:
      'Guard 2: a change that would leave the agency with allowBusinessRegistration on and no active public ' +
      'plan answers 409 PLANS.LAST_ACTIVE_PUBLIC_PLAN. A plan of another agency answers 404 like a missing one.',
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
