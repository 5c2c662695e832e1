import type { ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import type { TestContext } from '../helpers/app.ts';
import { lastMessageTo } from '../identity/principals.ts';

export type T = ExecutionContext<TestContext>;

export const PASSWORD = 'a long passphrase 1';

/** A business registered under Demo Agency through the gates, its owner's email verified: its id, the owner's id, email and token. */
export async function business(t: T, name: string): Promise<{ id: string; token: string; ownerId: string; ownerEmail: string }> {
  const email = `${uuidv7()}@business.test`;
  const registered = await t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({ email, password: PASSWORD, name: `${name} Owner`, businessName: name, agencyId: ORGANIZATIONS.demoAgency.id })
    .expect(201);
  await t.context.t.db.pool.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${registered.body.userId}`);
  return {
    id: registered.body.organizationId,
    ownerId: registered.body.userId,
    ownerEmail: email,
    token: await t.context.t.login(email, PASSWORD),
  };
}

/** Requests with a bearer token and, when given, `x-org-id`. */
export const as = (t: T, token: string, organizationId?: string) => {
  const http = t.context.t.http();
  const withHeaders = <R extends { set(name: string, value: string): R }>(request: R) => {
    const authed = request.set('authorization', `Bearer ${token}`);
    return organizationId === undefined ? authed : authed.set('x-org-id', organizationId);
  };
  return {
    get: (path: string) => withHeaders(http.get(path)),
    post: (path: string, body: object) => withHeaders(http.post(path)).send(body),
    delete: (path: string) => withHeaders(http.delete(path)),
    put: (path: string, body: object) => withHeaders(http.put(path)).send(body),
  };
};

/** The invitation code of the newest invitation mailed to `email` (the link's `invitation` parameter). */
export async function invitationCodeSentTo(t: T, email: string): Promise<{ code: string; text: string }> {
  const message = await lastMessageTo(t, email);
  const match = /[?&]invitation=([A-Za-z0-9_-]+)/.exec(message.text);
  if (message.template !== 'organization-invitation' || !match) throw new Error(`no invitation to ${email}`);
  return { code: match[1]!, text: message.text };
}

/** Invites `email` as `role` into the organization the token acts in (or `organizationId`), accepts it, signs in: the new principal's id and token. */
export async function invitedMember(
  t: T,
  inviter: { token: string; organizationId?: string },
  email: string,
  role: 'owner' | 'member' | 'client' = 'member',
): Promise<{ userId: string; token: string }> {
  await as(t, inviter.token, inviter.organizationId).post('/api/organization/my/invitations', { email, role }).expect(201);
  const { code } = await invitationCodeSentTo(t, email);
  const type = role === 'client' ? 'client' : 'user';
  const accepted = await t.context.t
    .http()
    .post(`/api/identity/auth/${type}/accept-invitation`)
    .send({ email, code, password: PASSWORD, name: 'Invited Person' })
    .expect(201);
  return { userId: accepted.body.userId, token: await t.context.t.login(email, PASSWORD, type) };
}
