import { countOwners, deleteMember, findMemberRole, listMembers } from '../../sql/members.ts';
import { lockOrganization } from '../../sql/organizations.ts';
import type { AppDeps } from '../core/deps.ts';
import { lastOwner, memberNotFound } from './errors.ts';

/** A page of the organization's members, newest first (`limit` default 100). */
export async function membersPage(deps: AppDeps, organizationId: string, query: { limit?: number; before?: string }) {
  const limit = query.limit ?? 100;
  const rows = await listMembers(deps.db, organizationId, { limit, before: query.before });
  return { members: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * Removes a member of the organization (`DELETE /organization/my/members/:userId`): 404 for
 * anyone not in it, 409 `ORGANIZATION.LAST_OWNER` for its last owner. The organization's row is
 * locked first, so two owners removing each other at once leave one. The removed user's token is
 * refused (401) from its next request: the route chain reads the user at every request.
 */
export async function removeMember(deps: AppDeps, organizationId: string, userId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    const role = await findMemberRole(tx, organizationId, userId);
    if (role === null) throw memberNotFound();
    if (role === 'owner' && (await countOwners(tx, organizationId)) <= 1) throw lastOwner();
    await deleteMember(tx, organizationId, userId);
  });
}
