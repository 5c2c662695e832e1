import type { Static } from '@sinclair/typebox';
import { uuidv7 } from 'uuidv7';
import { lockOrganization } from '../../sql/organizations.ts';
import { insertPlan, listPlansOfOrganization, updatePlanOfOrganization, type Plan, type PlanChange } from '../../sql/plans.ts';
import type { AppDeps } from '../core/deps.ts';
import { ValidationError } from '../core/errors.ts';
import type { AccessClaims } from '../core/route.ts';
import { hasActivePublicPlan } from './active-public-plan.ts';
import { lastActivePublicPlan, planNotFound } from './errors.ts';
import { centsOf, dollarsOf, dollarsText } from './money.ts';
import { planLimitsChanged } from './limits.ts';
import type { CreatePlanBody, LimitsBody, PlanSchema, UpdatePlanBody } from './schemas.ts';

/** A plan as the API shows it: the price in dollars (from cents), `maxUsers` both on its own and among the limits. */
export const planDto = (plan: Plan): Static<typeof PlanSchema> => {
  const { priceCents, ...rest } = plan;
  return { ...rest, priceUsdPerMonth: dollarsOf(priceCents) };
};

export const listPlans = async (deps: AppDeps, auth: AccessClaims) =>
  (await listPlansOfOrganization(deps.db, auth.organizationId)).map(planDto);

/** `maxUsers` may come on its own (the first field plans had) or among the limits; both must agree. */
function maxUsersOf(body: { maxUsers?: number | null; limits?: Static<typeof LimitsBody> }): number | null | undefined {
  const inLimits = body.limits?.maxUsers;
  if (body.maxUsers !== undefined && inLimits !== undefined && body.maxUsers !== inLimits) {
    throw new ValidationError([{ path: ['limits', 'maxUsers'], message: 'must equal maxUsers when both are given' }]);
  }
  return inLimits !== undefined ? inLimits : body.maxUsers;
}

/** The body's limits in exact units: only the keys it names (a PATCH keeps the others). */
function limitsOf(body: Static<typeof UpdatePlanBody>): NonNullable<PlanChange['limits']> {
  const limits: NonNullable<PlanChange['limits']> = {};
  const given = body.limits ?? {};
  if (given.maxAgents !== undefined) limits.maxAgents = given.maxAgents;
  if (given.maxEndUserMessagesPerMonth !== undefined) limits.maxEndUserMessagesPerMonth = given.maxEndUserMessagesPerMonth;
  if (given.maxDocumentsMb !== undefined) limits.maxDocumentsMb = given.maxDocumentsMb;
  if (given.monthlyUsageUsd !== undefined) {
    limits.monthlyUsageUsd =
      given.monthlyUsageUsd === null ? null : dollarsText(centsOf(given.monthlyUsageUsd, ['limits', 'monthlyUsageUsd']));
  }
  const maxUsers = maxUsersOf(body);
  if (maxUsers !== undefined) limits.maxUsers = maxUsers;
  return limits;
}

/** Plan creation takes the agency lock too, so it is ordered with Guard 1 and Guard 2. */
export function createPlan(deps: AppDeps, auth: AccessClaims, body: Static<typeof CreatePlanBody>) {
  const limits = limitsOf(body);
  const priceCents = centsOf(body.priceUsdPerMonth ?? 0, ['priceUsdPerMonth']);
  return deps.db.transaction(async (tx) => {
    await lockOrganization(tx, auth.organizationId);
    const plan = await insertPlan(tx, {
      id: uuidv7(),
      organizationId: auth.organizationId,
      now: deps.clock(),
      name: body.name,
      isPublic: body.isPublic,
      isActive: body.isActive,
      priceCents,
      usageMarkupPercent: body.usageMarkupPercent ?? 0,
      limits: {
        maxAgents: limits.maxAgents ?? null,
        maxUsers: limits.maxUsers ?? null,
        maxEndUserMessagesPerMonth: limits.maxEndUserMessagesPerMonth ?? null,
        maxDocumentsMb: limits.maxDocumentsMb ?? null,
        monthlyUsageUsd: limits.monthlyUsageUsd ?? null,
      },
    });
    return planDto(plan);
  });
}

/**
 * Guard 2: a change that would leave the agency with the flag on and no active public plan is
 * refused. The change is applied under the agency lock and checked afterwards; a refused
 * change is rolled back, so what is checked is exactly the state that would be committed.
 * New prices and limits hold for the plan's businesses from the next request (the bill of a
 * month reads the plan as it is when the bill is asked for).
 */
export async function updatePlan(deps: AppDeps, auth: AccessClaims, planId: string, body: Static<typeof UpdatePlanBody>) {
  const change: PlanChange = {
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.isPublic === undefined ? {} : { isPublic: body.isPublic }),
    ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
    ...(body.priceUsdPerMonth === undefined ? {} : { priceCents: centsOf(body.priceUsdPerMonth, ['priceUsdPerMonth']) }),
    ...(body.usageMarkupPercent === undefined ? {} : { usageMarkupPercent: body.usageMarkupPercent }),
    limits: limitsOf(body),
  };
  const plan = await deps.db.transaction(async (tx) => {
    const agency = await lockOrganization(tx, auth.organizationId);
    const updated = await updatePlanOfOrganization(tx, auth.organizationId, planId, change, deps.clock());
    if (!updated) throw planNotFound();
    if (agency?.allowBusinessRegistration && !(await hasActivePublicPlan(tx, auth.organizationId))) {
      throw lastActivePublicPlan();
    }
    return updated;
  });
  planLimitsChanged(deps);
  return planDto(plan);
}
