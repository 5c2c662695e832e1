import { sql, type DatabasePool } from 'slonik';
import { hashPassword } from '../app/identity/passwords.ts';
import { seedDemoUsage } from './demo-usage.ts';
import { AGENTS, DEMO_PASSWORD, ORGANIZATIONS, PLANS, ROLES, USERS } from './demo-fixtures.ts';

/**
 * Creates the demo organizations, roles, accounts, plans and agents of docs/interface.md §3.
 * Idempotent: rows are keyed by fixed ids and inserted only when absent, so a second run
 * changes nothing (and never resets a demo password someone changed).
 */
export async function seedDemo(db: DatabasePool, report: (message: string) => void = () => {}): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    for (const role of Object.values(ROLES)) {
      await tx.query(sql.unsafe`
        INSERT INTO roles (id, name, description) VALUES (${role.id}, ${role.name}, ${role.description})
        ON CONFLICT (id) DO NOTHING`);
      for (const [subject, action] of role.grants) {
        await tx.query(sql.unsafe`
          INSERT INTO role_permissions (role_id, subject, action) VALUES (${role.id}, ${subject}, ${action})
          ON CONFLICT DO NOTHING`);
      }
    }
    for (const org of Object.values(ORGANIZATIONS)) {
      await tx.query(sql.unsafe`
        INSERT INTO organizations (id, name, type, allow_business_registration, user_capacity)
        VALUES (${org.id}, ${org.name}, ${org.type}, ${org.allowBusinessRegistration}, ${org.userCapacity})
        ON CONFLICT (id) DO NOTHING`);
    }
    for (const plan of Object.values(PLANS)) {
      await tx.query(sql.unsafe`
        INSERT INTO plans (id, agency_id, name, is_public, is_active, max_users)
        VALUES (${plan.id}, ${ORGANIZATIONS[plan.agency].id}, ${plan.name}, ${plan.isPublic}, ${plan.isActive}, ${plan.maxUsers})
        ON CONFLICT (id) DO NOTHING`);
    }
    for (const user of Object.values(USERS)) {
      await tx.query(sql.unsafe`
        INSERT INTO users (id, organization_id, type, email, name, password_hash, email_verified_at)
        VALUES (${user.id}, ${ORGANIZATIONS[user.organization].id}, 'user', ${user.email}, ${user.name}, ${passwordHash}, now())
        ON CONFLICT (id) DO NOTHING`);
      for (const role of user.roles) {
        await tx.query(sql.unsafe`
          INSERT INTO user_roles (user_id, role_id) VALUES (${user.id}, ${ROLES[role].id}) ON CONFLICT DO NOTHING`);
      }
    }
    for (const agent of Object.values(AGENTS)) {
      await tx.query(sql.unsafe`
        INSERT INTO agents (id, agency_id, name, description)
        VALUES (${agent.id}, ${ORGANIZATIONS[agent.agency].id}, ${agent.name}, ${agent.description})
        ON CONFLICT (id) DO NOTHING`);
    }
    report('demo organizations, accounts, plans and agents are present');
  });
  const added = await seedDemoUsage(db);
  report(added ? 'demo usage added (120 days for Demo Agency)' : 'demo usage already present');
}
