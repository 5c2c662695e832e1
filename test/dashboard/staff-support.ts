/**
 * What the console's staff tests share (console-approvals.test.ts): the Support Assistant on a
 * website whose staff answer approvals, the app talking to a scripted model, and page helpers.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { signIn, waitForReports, type DashboardContext } from '../helpers/dashboard.ts';
import { chatConfig, provider, setTools, userMessage, type T as ChatT } from '../chat/support.ts';
import { userHashOf } from '../../app/channel/secrets.ts';
import { anonymousSession, openSession, putChannel, rotateSecret, SHOP, type Session, type T as ChannelT } from '../channel/support.ts';

export type T = ExecutionContext<DashboardContext>;

export const PHONE = { width: 375, height: 800 };
export const AGENT = AGENTS.support;

export type Approval = {
  id: string;
  endUser: { id: string };
  conversationId: string;
  status: string;
  approved: boolean | null;
  answeredBy: string | null;
};

export const bearer = async (t: T) => `Bearer ${await t.context.t.login('owner@demo.test')}`;

export async function approvalsOfApi(t: T, status: 'pending' | 'answered'): Promise<Approval[]> {
  const response = await t.context.t
    .http()
    .get(`/api/ai/approvals?status=${status}`)
    .set('authorization', await bearer(t))
    .expect(200);
  return (response.body as { approvals: Approval[] }).approvals;
}

/**
 * The app talking to a scripted model that calls list_documents (needs the staff's approval) and
 * answers text once the tool has run; the Support Assistant on a website whose staff answer.
 */
export async function staffChannel(t: T) {
  const model = await provider(t as unknown as ChatT, (request) =>
    request.messages.some((message) => message.role === 'tool')
      ? { kind: 'text', text: 'Here are the documents.' }
      : { kind: 'tool-call', toolName: 'list_documents', input: { limit: 5 } },
  );
  await setTools(t as unknown as ChatT, await bearer(t), [
    { toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' },
  ]);
  const { publishableKey } = await putChannel(t as unknown as ChannelT, { approvals: 'staff' });
  const origin = await t.context.serve(t.context.t.rebuild({ config: chatConfig({ gatewayUrl: model.url }) }));
  /** An end user's turn that ends waiting for the staff's approval: an anonymous visitor's, or the verified `user`'s. */
  const ask = async (chatId: string, user?: Record<string, string>) => {
    const session = user
      ? ((
          await openSession(t as unknown as ChannelT, {
            publishableKey,
            user: { ...user, hash: userHashOf(await rotateSecret(t as unknown as ChannelT), user.id!) },
          })
        ).body as Session)
      : await anonymousSession(t as unknown as ChannelT, publishableKey);
    const response = await fetch(`${origin}/api/public/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ id: chatId, messages: [userMessage('list the documents', `u-${chatId}`)] }),
    });
    t.regex(await response.text(), /"type":"tool-approval-request"/);
    return session;
  };
  return { origin, ask };
}

export async function open(t: T, origin: string, hash: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const { page } = await t.context.open({ viewport, bypassCSP: true });
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard${hash}`);
  return page;
}

export async function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** Waits until every end user's conversation of the agent ends in the agent's text answer (the continuations ran). */
export async function settled(t: T): Promise<void> {
  const token = await bearer(t);
  for (let tries = 0; tries < 500; tries += 1) {
    const listed = await t.context.t.http().get(`/api/ai/agents/${AGENT.id}/end-user-conversations`).set('authorization', token);
    const ids = (listed.body.conversations as { id: string }[]).map((conversation) => conversation.id);
    const details = await Promise.all(
      ids.map((id) => t.context.t.http().get(`/api/ai/agents/${AGENT.id}/end-user-conversations/${id}`).set('authorization', token)),
    );
    const done = details.every((detail) => JSON.stringify((detail.body.messages as unknown[]).at(-1)).includes('Here are the documents.'));
    if (done) return;
    await delay(20); // waits on the service's own turns, which run after the answer
  }
  throw new Error('the conversations did not go on');
}

/** The page's list requests of `pattern` asked with `limit=1`, so two items make two pages. */
export async function onePerPage(page: Page, pattern: string): Promise<void> {
  await page.route(pattern, async (route) => {
    const url = new URL(route.request().url());
    url.searchParams.set('limit', '1');
    await route.continue({ url: url.toString() });
  });
}
