import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { Uuid } from '../core/schemas.ts';
import { LimitsSchema } from './schemas.ts';
import { planUsage } from './usage.ts';

const PlanUsageSchema = Type.Object({
  month: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'the current UTC month' }),
  plan: Type.Union([Type.Object({ id: Uuid(), name: Type.String() }), Type.Null()], { description: 'null: on no plan' }),
  limits: LimitsSchema,
  used: Type.Object({
    agents: Type.Integer({ description: 'agents in use (archived ones do not count)' }),
    users: Type.Integer({ description: 'staff users' }),
    endUserMessages: Type.Integer({ description: 'end-user messages this UTC month, all channels' }),
    documentsMb: Type.Number({ description: 'MB (1,048,576 bytes) of knowledge documents, 2 decimals' }),
    usageUsd: Type.Number({ description: 'usage cost this UTC month, every source, 4 decimals' }),
  }),
});

/** How much of its plan the acting organization uses (docs/billing.md); read-only. */
export const planUsageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/organization/my/plan-usage',
    summary: "The acting organization's plan limits and how much of each it uses this UTC month",
    description:
      'Each figure is counted as its limit counts it: agents not archived, staff users, end-user messages of the UTC month ' +
      'over all channels, MB of knowledge documents, usage cost of the UTC month (platform key and own key). ' +
      'An organization on no plan answers plan null and every limit null. docs/billing.md.',
    tags: ['billing'],
    auth: 'jwt',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    responses: { 200: { description: 'The limits and their use', schema: PlanUsageSchema } },
    handler: ({ deps, scope }) => planUsage(deps, scope.organizationId),
  }),
];
