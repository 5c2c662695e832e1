import { uuidv7 } from 'uuidv7';
import { findActivePlanOfAgency, listBusinessesOfAgency, type BusinessRow } from '../../sql/agency-businesses.ts';
import { findOrganization, insertOrganization, lockOrganization } from '../../sql/organizations.ts';
import type { AppDeps } from '../core/deps.ts';
import { inviteMember } from '../identity/invitations.ts';
import { agencyOnly } from '../organization/errors.ts';
import { planNotAvailable } from '../plans/errors.ts';

/** The first instant of the UTC month of `now`. */
export const monthStartOf = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/**
 * A business as the agency's clients list answers it. Seam: `plan` is null until a business
 * carries a plan (the plans-and-bill work adds it to the row and fills it here).
 */
const asBusiness = (row: BusinessRow) => ({
  id: row.id,
  name: row.name,
  plan: null,
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
 * the agency (409 `PLANS.PLAN_NOT_AVAILABLE`). Seam: the plan is checked, not yet kept on the
 * business (businesses carry no plan until the plans-and-bill work).
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
    if (!(await findActivePlanOfAgency(tx, agencyId, body.planId))) throw planNotAvailable();
    const id = uuidv7();
    await insertOrganization(tx, { id, name: body.name, type: 'BUSINESS', parentId: agencyId });
    const business = (await findOrganization(tx, id))!;
    const invitation = await inviteMember(deps, tx, {
      organizationId: id,
      email: body.owner.email,
      role: 'owner',
      invitedBy,
      name: body.owner.name,
    });
    const row = { id, name: business.name, users: 0, agents: 0, createdAt: business.createdAt, turns: 0, usageCostUsd: 0, billedUsd: 0 };
    return { business: asBusiness(row), invitation: { id: invitation.id, email: invitation.email, expiresAt: invitation.expiresAt } };
  });
}
