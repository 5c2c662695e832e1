import type { ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import type { TestContext } from '../helpers/app.ts';

export type T = ExecutionContext<TestContext>;

/** Requests as `token`, acting in `organizationId` when given (x-org-id), on `server` (default the file's app). */
export function as(t: T, token: string, organizationId?: string, server: () => ReturnType<TestContext['t']['http']> = t.context.t.http) {
  const sign = <R extends { set(name: string, value: string): R }>(request: R) => {
    const authed = request.set('authorization', `Bearer ${token}`);
    return organizationId === undefined ? authed : authed.set('x-org-id', organizationId);
  };
  return {
    get: (path: string) => sign(server().get(path)),
    post: (path: string, body: object) => sign(server().post(path)).send(body),
    put: (path: string, body: object) => sign(server().put(path)).send(body),
    patch: (path: string, body: object) => sign(server().patch(path)).send(body),
  };
}

/** The demo agency's owner. */
export const owner = (t: T) => t.context.t.login(USERS.owner.email);

/** A plan of the demo agency, made through the API; answers its id. */
export async function plan(t: T, body: Record<string, unknown>): Promise<string> {
  const response = await as(t, await owner(t))
    .post('/api/plans', { name: `Plan ${uuidv7().slice(-6)}`, isPublic: true, isActive: true, ...body })
    .expect(201);
  return response.body.id as string;
}

/** A business registered under the demo agency (on `planId`, else its oldest active public plan), its owner verified. */
export async function business(
  t: T,
  name: string,
  planId?: string,
  server: () => ReturnType<TestContext['t']['http']> = t.context.t.http,
): Promise<{ id: string; token: string; email: string }> {
  const email = `${uuidv7()}@business.test`;
  const registered = await server()
    .post('/api/identity/auth/user/register/business')
    .send({
      email,
      password: 'demo-password-1',
      name: `${name} Owner`,
      businessName: name,
      agencyId: ORGANIZATIONS.demoAgency.id,
      ...(planId ? { planId } : {}),
    });
  t.is(registered.status, 201, JSON.stringify(registered.body));
  await t.context.t.db.pool.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${registered.body.userId}`);
  return { id: registered.body.organizationId as string, token: await t.context.t.login(email), email };
}
