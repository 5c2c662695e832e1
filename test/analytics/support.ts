import { sql, type DatabasePool } from 'slonik';
import { uuidv7 } from 'uuidv7';
import jwt from 'jsonwebtoken';
import { insertUsageEvents, type UsageEventInput } from '../../sql/usage-events.ts';
import { upsertModelPricing } from '../../sql/usage-import.ts';
import { ROLES } from '../../seeds/demo-fixtures.ts';
import { TEST_JWT_SECRET, type TestApp } from '../helpers/app.ts';

/**
 * Tests here mint access tokens instead of logging in: signing in is the identity area's
 * concern, and the tokens carry exactly the claims of docs/interface.md §2.
 */
export function accessToken(userId: string, agencyId: string): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ sub: userId, userId, agencyId, type: 'user', iat: now, exp: now + 900 }, TEST_JWT_SECRET, {
    algorithm: 'HS256',
  });
}

/** The agency-owner role of the demo fixtures (it grants `read` on `ai.agent`). */
async function ensureOwnerRole(db: DatabasePool): Promise<void> {
  const role = ROLES.agencyOwner;
  await db.query(sql.unsafe`
    INSERT INTO roles (id, name, description) VALUES (${role.id}, ${role.name}, ${role.description}) ON CONFLICT DO NOTHING`);
  for (const [subject, action] of role.grants) {
    await db.query(sql.unsafe`
      INSERT INTO role_permissions (role_id, subject, action) VALUES (${role.id}, ${subject}, ${action}) ON CONFLICT DO NOTHING`);
  }
}

export type Tenant = { organizationId: string; ownerToken: string; memberToken: string };

/** A fresh agency with an owner (agency-owner role: `read` on `ai.agent`) and a member without roles. */
export async function createTenant(db: DatabasePool, label: string): Promise<Tenant> {
  await ensureOwnerRole(db);
  const organizationId = uuidv7();
  const ownerId = uuidv7();
  const memberId = uuidv7();
  await db.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${organizationId}, ${label}, 'AGENCY')`);
  for (const [id, role] of [
    [ownerId, 'owner'],
    [memberId, 'member'],
  ] as const) {
    await db.query(sql.unsafe`
      INSERT INTO users (id, organization_id, type, email, name)
      VALUES (${id}, ${organizationId}, 'user', ${`${role}-${id.slice(-12)}@analytics.test`}, ${role})`);
  }
  await db.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${ownerId}, ${ROLES.agencyOwner.id})`);
  return { organizationId, ownerToken: accessToken(ownerId, organizationId), memberToken: accessToken(memberId, organizationId) };
}

export type UsageRow = Partial<Omit<UsageEventInput, 'organizationId' | 'createdAt'>> & { at: string };

/** Inserts rows with small defaults: 100 input, 10 output, 0 cached tokens, $0.01, no latency. */
export async function insertUsage(db: DatabasePool, organizationId: string, rows: UsageRow[]): Promise<void> {
  await insertUsageEvents(
    db,
    rows.map(({ at, ...row }) => ({
      id: uuidv7(),
      organizationId,
      agentId: null,
      userId: null,
      modelId: 'test/model-a',
      actionType: 'user_interaction',
      source: 'system',
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: 0,
      costUsd: '0.01',
      latencyMs: null,
      createdAt: at,
      ...row,
    })),
  );
}

export const price = upsertModelPricing;

/** GET an analytics endpoint with a token; returns the supertest response. */
export function getUsage(
  t: TestApp,
  token: string,
  endpoint: string,
  query: Record<string, string | number>,
  headers: Record<string, string> = {},
) {
  const request = t.http().get(`/api/ai/org-usage/${endpoint}`).query(query).set('authorization', `Bearer ${token}`);
  for (const [name, value] of Object.entries(headers)) request.set(name, value);
  return request;
}

/** A fixture built once per test file, on first use (ava runs `before` hooks concurrently). */
export function once<C, T>(build: (context: C) => Promise<T>): (context: C) => Promise<T> {
  let value: Promise<T> | undefined;
  return (context) => (value ??= build(context));
}
