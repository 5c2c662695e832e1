import { findOrganization } from '../../sql/organizations.ts';
import { lockBusinessOfAgency, putBusinessOnPlan } from '../../sql/business-plans.ts';
import { findPlanOfOrganization } from '../../sql/plans.ts';
import type { AppDeps } from '../core/deps.ts';
import { forbidden } from '../core/errors.ts';
import { withPlan, type OrganizationWithPlan } from '../organization/my-organization.ts';
import { planNotAvailable } from '../plans/errors.ts';
import { planLimitsChanged } from '../plans/limits.ts';
import { businessNotFound } from './errors.ts';

/** 403 (the interface's plain body) unless the acting organization is an AGENCY: only an agency has businesses and a bill. */
export async function requireAgency(deps: AppDeps, organizationId: string): Promise<void> {
  const organization = await findOrganization(deps.db, organizationId);
  if (organization?.type !== 'AGENCY') throw forbidden();
}

/**
 * Moves one of the acting agency's businesses to another of its active plans (public or not), from
 * now: its limits hold from the next request, and the month's bill uses the plan it is on when the
 * month ends. 404 for a business of another agency, 409 `PLANS.PLAN_NOT_AVAILABLE` for a plan that
 * is not an active plan of this agency.
 */
export async function moveBusinessToPlan(
  deps: AppDeps,
  agencyId: string,
  businessId: string,
  planId: string,
): Promise<OrganizationWithPlan> {
  await requireAgency(deps, agencyId);
  await deps.db.transaction(async (tx) => {
    if (!(await lockBusinessOfAgency(tx, agencyId, businessId))) throw businessNotFound();
    const plan = await findPlanOfOrganization(tx, agencyId, planId);
    if (!plan?.isActive) throw planNotAvailable();
    await putBusinessOnPlan(tx, businessId, plan.id, deps.clock());
  });
  planLimitsChanged(deps);
  const business = await findOrganization(deps.db, businessId);
  if (!business) throw businessNotFound();
  return withPlan(deps.db, business);
}
