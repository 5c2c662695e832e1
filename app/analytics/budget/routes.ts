import { Type } from '@sinclair/typebox';
import { deleteBudget, findBudget, upsertBudget } from '../../../sql/usage-budgets.ts';
import { notFound } from '../../core/errors.ts';
import { defineRoute } from '../../core/route.ts';
import { ErrorBody, StrictObject, ValidationErrorBody } from '../../core/schemas.ts';
import { afterUsageWritten, spendChanged } from './checker.ts';
import { budgetState } from './status.ts';
import { ORGANIZATION_SCOPE } from '../../core/route-scope.ts';

export const DEFAULT_ALERT_THRESHOLDS_PCT = [50, 80, 100];

const BudgetBody = StrictObject({
  monthlyLimitUsd: Type.Number({ minimum: 0.01, maximum: 1_000_000_000, description: 'USD, at least one cent' }),
  alertThresholdsPct: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 100 }), {
      minItems: 1,
      maxItems: 10,
      uniqueItems: true,
      default: DEFAULT_ALERT_THRESHOLDS_PCT,
    }),
  ),
  enforce: Type.Optional(
    Type.Boolean({ default: false, description: 'Refuse new chat turns (402 AI.BUDGET_EXCEEDED) while the spend is at or over the limit' }),
  ),
});

const BudgetSchema = Type.Object({
  monthlyLimitUsd: Type.Number(),
  alertThresholdsPct: Type.Array(Type.Integer()),
  enforce: Type.Boolean(),
  month: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'The current UTC month' }),
  spentUsd: Type.Number(),
  projectedUsd: Type.Union([Type.Number(), Type.Null()], {
    description: 'Month-end spend projected from the last 30 days; null below 7 days with usage',
  }),
  status: Type.Union([Type.Literal('ok'), Type.Literal('at_risk'), Type.Literal('exceeded')]),
});

const ORGANIZATION_UPDATE = { subject: 'organization', action: 'update' } as const;
const noBudget = () => notFound('Budget');

export const budgetRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/ai/org-usage/budget',
    summary: "Set the organization's monthly AI budget and alert thresholds",
    description: 'Alerts go by email, once per threshold and UTC month, to the users with update on organization.',
    tags: ['analytics'],
    auth: 'jwt',
    policy: ORGANIZATION_UPDATE,
    scope: ORGANIZATION_SCOPE,
    schemas: { body: BudgetBody },
    responses: {
      200: { description: 'The budget and where it stands', schema: BudgetSchema },
      400: { description: 'Invalid body', schema: ValidationErrorBody },
    },
    handler: async ({ deps, scope, body }) => {
      const budget = await upsertBudget(deps.db, {
        organizationId: scope.organizationId,
        monthlyLimitUsd: body.monthlyLimitUsd,
        alertThresholdsPct: [...(body.alertThresholdsPct ?? DEFAULT_ALERT_THRESHOLDS_PCT)].sort((a, b) => a - b),
        enforce: body.enforce ?? false,
        now: deps.clock(),
      });
      spendChanged(deps.db, scope.organizationId);
      // A lower limit may already be crossed: say so now rather than at the next sweep.
      await afterUsageWritten(deps, scope.organizationId);
      return budgetState(deps.db, budget, deps.clock());
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/org-usage/budget',
    summary: "The organization's budget: this month's spend, projection and status",
    tags: ['analytics'],
    auth: 'jwt',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    responses: {
      200: { description: 'The budget and where it stands', schema: BudgetSchema },
      404: { description: 'No budget set', schema: ErrorBody },
    },
    handler: async ({ deps, scope }) => {
      const budget = await findBudget(deps.db, scope.organizationId);
      if (budget === null) throw noBudget();
      return budgetState(deps.db, budget, deps.clock());
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/org-usage/budgets',
    summary: "The organization's budgets: its monthly budget when one is set, else none",
    description:
      'The same budget as GET /ai/org-usage/budget, in a list that is empty without one: for a client that shows a budget only when there is one (the console) and would otherwise ask for a 404.',
    tags: ['analytics'],
    auth: 'jwt',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    responses: {
      200: { description: 'None or one budget', schema: Type.Object({ budgets: Type.Array(BudgetSchema, { maxItems: 1 }) }) },
    },
    handler: async ({ deps, scope }) => {
      const budget = await findBudget(deps.db, scope.organizationId);
      return { budgets: budget === null ? [] : [await budgetState(deps.db, budget, deps.clock())] };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/org-usage/budget',
    summary: "Remove the organization's budget",
    tags: ['analytics'],
    auth: 'jwt',
    policy: ORGANIZATION_UPDATE,
    scope: ORGANIZATION_SCOPE,
    status: 204,
    responses: { 204: { description: 'Removed' }, 404: { description: 'No budget set', schema: ErrorBody } },
    handler: async ({ deps, scope }) => {
      if (!(await deleteBudget(deps.db, scope.organizationId))) throw noBudget();
      spendChanged(deps.db, scope.organizationId);
    },
  }),
];
