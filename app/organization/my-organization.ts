import { findOrganization, lockOrganization, updateOrganization, type Organization } from '../../sql/organizations.ts';
import type { AppDeps } from '../core/deps.ts';
import { hasActivePublicPlan } from '../plans/active-public-plan.ts';
import { noActivePublicPlan, notAnAgency, organizationNotFound } from './errors.ts';

export async function getMyOrganization(deps: AppDeps, organizationId: string): Promise<Organization> {
  return (await findOrganization(deps.db, organizationId)) ?? Promise.reject(organizationNotFound());
}

/**
 * Guard 1: turning `allowBusinessRegistration` on needs an active public plan. Checked only
 * when the flag is part of the update, under the lock on the organization row that Guard 2
 * and plan creation also take, so a concurrent plan change cannot slip between check and write.
 */
export async function updateMyOrganization(
  deps: AppDeps,
  organizationId: string,
  change: { name?: string; allowBusinessRegistration?: boolean },
): Promise<Organization> {
  return deps.db.transaction(async (tx) => {
    const organization = await lockOrganization(tx, organizationId);
    if (!organization) throw organizationNotFound();
    if (change.allowBusinessRegistration === true) {
      if (organization.type !== 'AGENCY') throw notAnAgency();
      if (!(await hasActivePublicPlan(tx, organization.id))) throw noActivePublicPlan();
    }
    return updateOrganization(tx, organization.id, change);
  });
}
