import { uuidv7 } from 'uuidv7';
import { findActivePlanOfAgency, listBusinessesOfAgency, type BusinessRow } from '../../sql/agency-businesses.ts';
import { putBusinessOnPlan } from '../../sql/business-plans.ts';
import { findOrganization, insertOrganization, lockOrganization } from '../../sql/organizations.ts';
import type { AppDeps } from '../core/deps.ts';
import { inviteMember } from '../identity/invitations.ts';
import { agencyOnly } from '../organization/errors.ts';
import { planNotAvailable } from '../plans/errors.ts';

/** The first instant of the UTC month of `now`. */
export const monthStartOf = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/** A business as the agency's clients list answers it. */
const asBusiness = (row: BusinessRow) => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  users: row.users,
  agents: row.agents,
  createdAt: row.createdAt,
  monthToDate: { turns: row.turns, usageCostUsd: row.usageCostUsd, billedUsd: row.billedUsd },
});

/** A page of the acting agency's businesses, newest first (`limit` default 50); 409 `ORGANIZATION.NOT_AN_AGENCY` in a business. */
export async function businessesPage(deps: AppDeps, agencyId: string, query: { limit?: number; before?: string }) {
  const limit = query.limit ?? 50;
  const [agency, rows] = await Promise.all([
    findOrganization(deps.db, agencyId),
    listBusinessesOfAgency(deps.db, agencyId, { limit, before: query.before, monthStart: monthStartOf(deps.clock()) }),
  ]);
  if (agency?.type !== 'AGENCY') throw agencyOnly();
  return { businesses: rows.slice(0, limit).map(asBusiness), hasMore: rows.length > limit };
}

/**
 * A client workspace made by the agency (`POST /agency/businesses`): a BUSINESS under the acting
 * agency and an invitation of its owner (mailed), in one transaction under the agency's row lock
 * (the lock business registration takes: the user capacity counts exactly). Not gated by
 * `allowBusinessRegistration`, which gates self-registration. `planId` must be an active plan of
 * the agency (409 `PLANS.PLAN_NOT_AVAILABLE`); the business is on it from now (its plan history
 * starts with it, sql/business-plans.ts).
 */
export async function createBusiness(
  deps: AppDeps,
  agencyId: string,
  invitedBy: string,
  body: { name: string; planId: string; owner: { email: string; name: string } },
) {
  return deps.db.transaction(async (tx) => {
    const agency = await lockOrganization(tx, agencyId);
    if (agency?.type !== 'AGENCY') throw agencyOnly();
    const plan = await findActivePlanOfAgency(tx, agencyId, body.planId);
    if (!plan) throw planNotAvailable();
    const id = uuidv7();
    await insertOrganization(tx, { id, name: body.name, type: 'BUSINESS', parentId: agencyId });
    await putBusinessOnPlan(tx, id, plan.id, deps.clock());
    const invitation = await inviteMember(deps, tx, {
      organizationId: id,
      email: body.owner.email,
      role: 'owner',
      invitedBy,
      name: body.owner.name,
    });
    // Read as the list reads it: the month so far is billed the plan's price from the first day.
    const [row] = await listBusinessesOfAgency(tx, agencyId, {
      limit: 1,
      before: undefined,
      monthStart: monthStartOf(deps.clock()),
      only: id,
    });
    return { business: asBusiness(row!), invitation: { id: invitation.id, email: invitation.email, expiresAt: invitation.expiresAt } };
  });
}
