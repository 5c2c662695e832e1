import type { ExecutionContext } from 'ava';
import type { TestContext } from '../helpers/app.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';

export type T = ExecutionContext<TestContext>;
export const agentId = AGENTS.support.id;
export const SHOP = 'https://shop.example.com';

/** Puts the Support Assistant's channel as the demo owner and answers it. */
export async function putChannel(t: T, body: Record<string, unknown> = {}, agent = agentId, email = 'owner@demo.test') {
  const token = await t.context.t.login(email);
  const response = await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/channel`)
    .set('authorization', `Bearer ${token}`)
    .send({ enabled: true, allowedOrigins: [SHOP], ...body })
    .expect(200);
  return response.body as { publishableKey: string; allowedOrigins: string[]; identity: string; approvals: string };
}

/** A new secret of the agent's channel. */
export async function rotateSecret(t: T, agent = agentId): Promise<string> {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${agent}/channel/secret`)
    .set('authorization', `Bearer ${token}`)
    .expect(201);
  return (response.body as { secret: string }).secret;
}

/** `POST /api/public/sessions` from a page of `origin` (none: a server calling). */
export function openSession(t: T, body: Record<string, unknown>, origin: string | null = SHOP, headers: Record<string, string> = {}) {
  const request = t.context.t.http().post('/api/public/sessions');
  if (origin !== null) request.set('origin', origin);
  for (const [name, value] of Object.entries(headers)) request.set(name, value);
  return request.send(body);
}

export type Session = { sessionToken: string; visitorToken?: string; endUser: { id: string; verified: boolean } };

/** An anonymous session on the channel of `publishableKey` (201 expected). */
export async function anonymousSession(t: T, publishableKey: string, visitorToken?: string): Promise<Session> {
  const response = await openSession(t, { publishableKey, ...(visitorToken ? { visitorToken } : {}) });
  t.is(response.status, 201, JSON.stringify(response.body));
  return response.body as Session;
}
