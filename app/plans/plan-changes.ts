import { uuidv7 } from 'uuidv7';
import { lockOrganization } from '../../sql/organizations.ts';
import { insertPlan, listPlansOfOrganization, updatePlanOfOrganization, type Plan } from '../../sql/plans.ts';
import type { AppDeps } from '../core/deps.ts';
import type { AccessClaims } from '../core/route.ts';
import { hasActivePublicPlan } from './active-public-plan.ts';
import { lastActivePublicPlan, planNotFound } from './errors.ts';

export const listPlans = (deps: AppDeps, auth: AccessClaims) => listPlansOfOrganization(deps.db, auth.organizationId);

/** Plan creation takes the agency lock too, so it is ordered with Guard 1 and Guard 2. */
export function createPlan(
  deps: AppDeps,
  auth: AccessClaims,
  body: { name: string; isPublic: boolean; isActive: boolean; maxUsers?: number },
): Promise<Plan> {
  return deps.db.transaction(async (tx) => {
    await lockOrganization(tx, auth.organizationId);
    return insertPlan(tx, { id: uuidv7(), organizationId: auth.organizationId, ...body, maxUsers: body.maxUsers ?? null });
  });
}

/**
 * Guard 2: a change that would leave the agency with the flag on and no active public plan is
 * refused. The change is applied under the agency lock and checked afterwards; a refused
 * change is rolled back, so what is checked is exactly the state that would be committed.
 */
export function updatePlan(
  deps: AppDeps,
  auth: AccessClaims,
  planId: string,
  change: { name?: string; isPublic?: boolean; isActive?: boolean },
): Promise<Plan> {
  return deps.db.transaction(async (tx) => {
    const agency = await lockOrganization(tx, auth.organizationId);
    const plan = await updatePlanOfOrganization(tx, auth.organizationId, planId, change);
    if (!plan) throw planNotFound();
    if (agency?.allowBusinessRegistration && !(await hasActivePublicPlan(tx, auth.organizationId))) {
      throw lastActivePublicPlan();
    }
    return plan;
  });
}
