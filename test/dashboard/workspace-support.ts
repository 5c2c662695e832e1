/**
 * Client workspaces for the console's workspace tests (console-workspaces.test.ts): businesses
 * registered under Demo Agency, an agent in each made by the agency acting in it, and end users'
 * turns waiting for the staff's approval (the demo model calls list_documents when asked to "use"
 * it; NODE_ENV=development, no provider).
 */
import type { ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { DEMO_PASSWORD, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import type { DashboardContext } from '../helpers/dashboard.ts';
import { lastMessageTo, type T as PrincipalsT } from '../identity/principals.ts';

type T = ExecutionContext<DashboardContext>;

const SHOP = 'https://shop.example.com';

export type ClientBusiness = { id: string; name: string; ownerEmail: string; agentId: string };

/** Requests as `token`, acting in `organizationId` when given. */
export function as(t: T, token: string, organizationId?: string) {
  const set = <R extends { set(name: string, value: string): R }>(request: R) => {
    const authed = request.set('authorization', `Bearer ${token}`);
    return organizationId ? authed.set('x-org-id', organizationId) : authed;
  };
  return {
    get: (path: string) => set(t.context.t.http().get(path)),
    post: (path: string, body: object) => set(t.context.t.http().post(path)).send(body),
    put: (path: string, body: object) => set(t.context.t.http().put(path)).send(body),
    patch: (path: string, body: object) => set(t.context.t.http().patch(path)).send(body),
  };
}

/** A business under Demo Agency (its owner verified, password the demo one) with an agent `<name> Helper` the agency made in it. */
export async function clientBusiness(t: T, name: string, agencyToken: string): Promise<ClientBusiness> {
  const ownerEmail = `owner-${uuidv7()}@${name.toLowerCase()}.test`;
  const registered = await t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({ email: ownerEmail, password: DEMO_PASSWORD, name: `${name} Owner`, businessName: name, agencyId: ORGANIZATIONS.demoAgency.id })
    .expect(201);
  await t.context.t.db.pool.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${registered.body.userId}`);
  const id = registered.body.organizationId as string;
  const agent = await as(t, agencyToken, id)
    .post('/api/ai/agents', { name: `${name} Helper` })
    .expect(201);
  return { id, name, ownerEmail, agentId: agent.body.id as string };
}

/** An anonymous visitor's turn on the agent's website chat that waits for the staff's approval of list_documents. */
export async function pendingApproval(t: T, agencyToken: string, organizationId: string, agentId: string): Promise<void> {
  const staff = as(t, agencyToken, organizationId);
  await staff
    .put(`/api/ai/agents/${agentId}/tools`, {
      tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }],
    })
    .expect(200);
  const channel = await staff
    .put(`/api/ai/agents/${agentId}/channel`, { enabled: true, allowedOrigins: [SHOP], approvals: 'staff' })
    .expect(200);
  const session = await t.context.t
    .http()
    .post('/api/public/sessions')
    .set('origin', SHOP)
    .send({ publishableKey: channel.body.publishableKey })
    .expect(201);
  const turn = await t.context.t
    .http()
    .post('/api/public/chat')
    .set('origin', SHOP)
    .set('authorization', `Bearer ${session.body.sessionToken as string}`)
    .send({
      id: `visit-${uuidv7()}`,
      messages: [{ id: `m-${uuidv7()}`, role: 'user', parts: [{ type: 'text', text: 'use list_documents' }] }],
    });
  if (!turn.text.includes('tool-approval-request')) throw new Error(`no approval asked: ${turn.status} ${turn.text.slice(0, 200)}`);
}

/** The console's link in the newest invitation mailed to `email`, on `origin` (the mail names PUBLIC_BASE_URL). */
export async function invitationLink(t: T, email: string, origin: string): Promise<string> {
  const { text } = await lastMessageTo(t as unknown as PrincipalsT, email);
  const link = /https?:\/\/\S*#\/accept-invitation\?\S+/.exec(text)?.[0];
  if (!link) throw new Error(`no invitation link in the mail to ${email}: ${text}`);
  const url = new URL(link);
  return `${origin}${url.pathname}${url.hash}`;
}
