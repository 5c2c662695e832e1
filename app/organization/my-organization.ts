import { findOrganization, lockOrganization, updateOrganization, type Organization } from '../../sql/organizations.ts';
import type { CommonQueryMethods } from 'slonik';
import { findPlanOfBusiness } from '../../sql/business-plans.ts';
import type { PlanLimits } from '../../sql/plans.ts';
import type { AppDeps } from '../core/deps.ts';
import { dollarsOf } from '../plans/money.ts';
import { hasActivePublicPlan } from '../plans/active-public-plan.ts';
import { noActivePublicPlan, notAnAgency, organizationNotFound } from './errors.ts';

/** The organization DTO: the row, and for a business the plan it is on now (null for an agency or none). */
export type OrganizationWithPlan = Organization & { plan: BusinessPlan | null };
type BusinessPlan = { id: string; name: string; priceUsdPerMonth: number; limits: PlanLimits };

export async function withPlan(db: CommonQueryMethods, organization: Organization): Promise<OrganizationWithPlan> {
  if (organization.type !== 'BUSINESS') return { ...organization, plan: null };
  const found = await findPlanOfBusiness(db, organization.id);
  if (!found) return { ...organization, plan: null };
  const { priceCents, ...plan } = found;
  return { ...organization, plan: { ...plan, priceUsdPerMonth: dollarsOf(priceCents) } };
}

export async function getMyOrganization(deps: AppDeps, organizationId: string): Promise<OrganizationWithPlan> {
  const organization = await findOrganization(deps.db, organizationId);
  if (!organization) throw organizationNotFound();
  return withPlan(deps.db, organization);
}

/**
 * Guard 1: turning `allowBusinessRegistration` on needs an active public plan. Checked only
 * when the flag is part of the update, under the lock on the organization row that Guard 2
 * and plan creation also take, so a concurrent plan change cannot slip between check and write.
 */
export async function updateMyOrganization(
  deps: AppDeps,
  organizationId: string,
  change: { name?: string; allowBusinessRegistration?: boolean; allowClientRegistration?: boolean },
): Promise<OrganizationWithPlan> {
  const updated = await deps.db.transaction(async (tx) => {
    const organization = await lockOrganization(tx, organizationId);
    if (!organization) throw organizationNotFound();
    if (change.allowBusinessRegistration === true) {
      if (organization.type !== 'AGENCY') throw notAnAgency();
      if (!(await hasActivePublicPlan(tx, organization.id))) throw noActivePublicPlan();
    }
    return updateOrganization(tx, organization.id, change);
  });
  return withPlan(deps.db, updated);
}
