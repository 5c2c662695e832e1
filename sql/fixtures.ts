import { sql, type CommonQueryMethods } from 'slonik';

// Rows with fixed ids, inserted only when absent (the demo seed and tests): a second run changes
// nothing and never overwrites a row someone edited since.

export async function ensureRole(db: CommonQueryMethods, role: { id: string; name: string; description: string }) {
  await db.query(sql.unsafe`
    INSERT INTO roles (id, name, description) VALUES (${role.id}, ${role.name}, ${role.description})
    ON CONFLICT (id) DO NOTHING`);
}

export async function ensureRoleGrant(db: CommonQueryMethods, roleId: string, subject: string, action: string) {
  await db.query(sql.unsafe`
    INSERT INTO role_permissions (role_id, subject, action) VALUES (${roleId}, ${subject}, ${action})
    ON CONFLICT DO NOTHING`);
}

export async function ensureOrganization(
  db: CommonQueryMethods,
  org: {
    id: string;
    name: string;
    type: string;
    /** A business's agency. */
    parentId?: string;
    allowBusinessRegistration: boolean;
    allowClientRegistration: boolean;
    userCapacity: number | null;
  },
) {
  await db.query(sql.unsafe`
    INSERT INTO organizations (id, name, type, parent_id, allow_business_registration, allow_client_registration, user_capacity)
    VALUES (${org.id}, ${org.name}, ${org.type}, ${org.parentId ?? null}, ${org.allowBusinessRegistration}, ${org.allowClientRegistration},
            ${org.userCapacity})
    ON CONFLICT (id) DO NOTHING`);
}

export async function ensurePlan(
  db: CommonQueryMethods,
  plan: { id: string; organizationId: string; name: string; isPublic: boolean; isActive: boolean; maxUsers: number | null },
) {
  await db.query(sql.unsafe`
    INSERT INTO plans (id, organization_id, name, is_public, is_active, max_users)
    VALUES (${plan.id}, ${plan.organizationId}, ${plan.name}, ${plan.isPublic}, ${plan.isActive}, ${plan.maxUsers})
    ON CONFLICT (id) DO NOTHING`);
}

/** A user whose email counts as verified. */
export async function ensureVerifiedUser(
  db: CommonQueryMethods,
  user: { id: string; organizationId: string; email: string; name: string; passwordHash: string; type?: 'user' | 'client' },
) {
  await db.query(sql.unsafe`
    INSERT INTO users (id, organization_id, type, email, name, password_hash, email_verified_at)
    VALUES (${user.id}, ${user.organizationId}, ${user.type ?? 'user'}, ${user.email}, ${user.name}, ${user.passwordHash}, now())
    ON CONFLICT (id) DO NOTHING`);
}

export async function ensureUserRole(db: CommonQueryMethods, userId: string, roleId: string) {
  await db.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${userId}, ${roleId}) ON CONFLICT DO NOTHING`);
}

export async function ensureAgent(
  db: CommonQueryMethods,
  agent: { id: string; organizationId: string; name: string; description: string; instructions: string },
) {
  // An agent seeded before it had instructions gets them; instructions someone wrote are kept.
  await db.query(sql.unsafe`
    INSERT INTO agents (id, organization_id, name, description, instructions)
    VALUES (${agent.id}, ${agent.organizationId}, ${agent.name}, ${agent.description}, ${agent.instructions})
    ON CONFLICT (id) DO UPDATE SET instructions = excluded.instructions WHERE agents.instructions = ''`);
}
