import type { DatabasePool } from 'slonik';
import {
  ensureAgent,
  ensureOrganization,
  ensurePlan,
  ensureRole,
  ensureRoleGrant,
  ensureUserRole,
  ensureVerifiedUser,
} from '../sql/fixtures.ts';
import { hashPassword } from '../app/identity/passwords.ts';
import { seedDemoUsage } from './demo-usage.ts';
import { AGENTS, CLIENTS, DEMO_PASSWORD, ORGANIZATIONS, PLANS, ROLES, USERS } from './demo-fixtures.ts';

/**
 * Creates the demo organizations, roles, accounts, plans and agents of docs/interface.md §3.
 * Idempotent: rows are keyed by fixed ids and inserted only when absent, so a second run
 * changes nothing (and never resets a demo password someone changed).
 */
export async function seedDemo(db: DatabasePool, report: (message: string) => void = () => {}): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    for (const role of Object.values(ROLES)) {
      await ensureRole(tx, role);
      for (const [subject, action] of role.grants) await ensureRoleGrant(tx, role.id, subject, action);
    }
    for (const org of Object.values(ORGANIZATIONS)) await ensureOrganization(tx, org);
    for (const plan of Object.values(PLANS)) await ensurePlan(tx, { ...plan, organizationId: ORGANIZATIONS[plan.agency].id });
    for (const user of Object.values(USERS)) {
      await ensureVerifiedUser(tx, { ...user, organizationId: ORGANIZATIONS[user.organization].id, passwordHash });
      for (const role of user.roles) await ensureUserRole(tx, user.id, ROLES[role].id);
    }
    for (const client of Object.values(CLIENTS))
      await ensureVerifiedUser(tx, { ...client, type: 'client', organizationId: ORGANIZATIONS[client.organization].id, passwordHash });
    for (const agent of Object.values(AGENTS)) await ensureAgent(tx, { ...agent, organizationId: ORGANIZATIONS[agent.agency].id });
    report('demo organizations, accounts, plans and agents are present');
  });
  const added = await seedDemoUsage(db);
  report(added ? 'demo usage added (120 days for Demo Agency)' : 'demo usage already present');
}
