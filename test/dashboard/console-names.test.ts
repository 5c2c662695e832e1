import anyTest from 'ava';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { mcpPeer, type T as ChatT } from '../chat/support.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { withDashboard } from '../helpers/dashboard.ts';
import { AGENT, bearer, open, staffChannel, type T } from './staff-support.ts';

const test = withDashboard(anyTest);

/** The page modules the console's router loads (dashboard/src/router.ts). */
const ROUTED = [
  ...readFileSync(new URL('../../dashboard/src/router.ts', import.meta.url), 'utf8').matchAll(/import\('\.\/pages\/([\w-]+)\.ts'\)/g),
].map((match) => match[1]!);

type Named = { name: string; href: string | null; tag: string };

/** The visible links and buttons of the page with their accessible names (what aria-label, else the text, gives them). */
const namedControls = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<Element> } }).document;
    type Element = {
      tagName: string;
      textContent: string | null;
      getAttribute(name: string): string | null;
      checkVisibility(): boolean;
    };
    return Array.from(doc.querySelectorAll('a[href], button'))
      .filter((node) => node.checkVisibility())
      .map((node) => ({
        name: (node.getAttribute('aria-label') ?? node.textContent ?? '').replace(/\s+/g, ' ').trim(),
        href: node.getAttribute('href'),
        tag: node.tagName.toLowerCase(),
      }));
  }) as Promise<Named[]>;

/** Names shared by controls that do different things: two buttons, or links to different places. */
function repeatedNames(controls: Named[]): string[] {
  const byName = new Map<string, Named[]>();
  for (const control of controls) byName.set(control.name, [...(byName.get(control.name) ?? []), control]);
  return [...byName.entries()]
    .filter(
      ([, same]) => same.length > 1 && (same.some((control) => control.tag === 'button') || new Set(same.map((c) => c.href)).size > 1),
    )
    .map(([name, same]) => `"${name}" x${same.length}`);
}

/** Data that makes every kind of list hold two items: approvals, end users' conversations, keys, servers, overrides, terms, origins. */
async function twoOfEverything(t: T) {
  const auth = await bearer(t);
  const { origin, ask } = await staffChannel(t);
  await ask('first-visitor');
  await ask('second-visitor');
  await seedDemoKnowledge(t.context.t.app.deps);
  const http = () => t.context.t.http();
  for (const name of ['Reporting', 'Billing export'])
    await http()
      .post('/api/api-keys')
      .set('authorization', auth)
      .send({ name, scopes: ['usage:write'] })
      .expect(201);
  const peer = await mcpPeer(t as unknown as ChatT);
  for (const name of ['Issue tracker', 'Calendar']) {
    // Through the development app: the MCP peer listens on loopback, which only development allows.
    const added = await fetch(`${origin}/api/ai/agents/${AGENT.id}/mcp-servers`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, transportType: 'http', url: peer.url }),
    });
    t.is(added.status, 201, await added.text());
  }
  for (const toolName of ['send_email', 'fetch_url'])
    await http().post(`/api/ai/agents/${AGENT.id}/tool-overrides`).set('authorization', auth).send({ toolName }).expect(200);
  await http()
    .patch(`/api/ai/agents/${AGENT.id}`)
    .set('authorization', auth)
    .send({ guardrails: { blockedTerms: ['password', 'card number'] } })
    .expect(200);
  // Two versions (the guardrails' change above is the seeded agent's first), two test cases and two runs of them.
  await http()
    .patch(`/api/ai/agents/${AGENT.id}`)
    .set('authorization', auth)
    .send({ instructions: 'Answer shoppers briefly.', versionNote: 'Shorter answers' })
    .expect(200);
  for (const name of ['Greeting', 'Return window'])
    await http()
      .post(`/api/ai/agents/${AGENT.id}/eval-cases`)
      .set('authorization', auth)
      .send({ name, messages: [{ role: 'user', parts: [{ type: 'text', text: `${name}?` }] }], expect: { contains: ['documents'] } })
      .expect(201);
  for (let run = 0; run < 2; run++) {
    // Through the development app, whose model is the scripted one.
    const started = await fetch(`${origin}/api/ai/agents/${AGENT.id}/eval-runs`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: '{}',
    });
    t.is(started.status, 202, await started.clone().text());
    const { id } = (await started.json()) as { id: string };
    let status = 'running';
    for (let read = 0; read < 200 && status === 'running'; read++) {
      await delay(50);
      status = (
        (await http().get(`/api/ai/agents/${AGENT.id}/eval-runs/${id}`).set('authorization', auth).expect(200)).body as { status: string }
      ).status;
    }
    t.not(status, 'running');
  }
  await http()
    .put(`/api/ai/agents/${AGENT.id}/channel`)
    .set('authorization', auth)
    .send({ enabled: true, allowedOrigins: ['https://shop.example.com', 'https://www.example.com'], approvals: 'staff' })
    .expect(200);
  // A staff chat that waits on its own approval (the scripted model calls list_documents).
  const chat = await fetch(`${origin}/api/ai/agents/${AGENT.id}/chat`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'staff-chat', messages: [{ id: 'staff-1', role: 'user', parts: [{ type: 'text', text: 'list them' }] }] }),
  });
  t.regex(await chat.text(), /tool-approval-request/);
  // Two client workspaces (the Clients page's rows and the switcher's choices); the agency's two members are the demo's.
  for (const name of ['Bakery', 'Florist'])
    await http()
      .post('/api/identity/auth/user/register/business')
      .send({
        email: `owner@${name.toLowerCase()}.test`,
        password: 'demo-password-1',
        name: `${name} Owner`,
        businessName: name,
        agencyId: ORGANIZATIONS.demoAgency.id,
      })
      .expect(201);
  // Two plans (the Plans page's Edit buttons, the Clients page's plan choices).
  await http()
    .post('/api/plans')
    .set('authorization', auth)
    .send({ name: 'Growth', isPublic: true, isActive: true, priceUsdPerMonth: 49.99, usageMarkupPercent: 30 })
    .expect(201);
  const conversations = await http().get(`/api/ai/agents/${AGENT.id}/end-user-conversations`).set('authorization', auth).expect(200);
  return { origin, endUserConversation: (conversations.body.conversations as { id: string }[])[0]!.id };
}

test.serial(
  'on every page of the console, with two of everything, each repeated link or button says what it acts on, axe finds no serious violation and no request fails',
  async (t) => {
    t.timeout(600_000); // fifteen pages, each checked by axe, on a loaded machine
    const { origin, endUserConversation } = await twoOfEverything(t);
    const agent = `#/agents/${AGENT.id}`;
    const pages: { module: string; hash: string; ready: string }[] = [
      { module: 'usage', hash: '#/usage', ready: '#dashboard[data-loaded="true"]' },
      { module: 'agents', hash: '#/agents', ready: '#agent-create-form button[type="submit"]' },
      { module: 'agent', hash: agent, ready: '#agent-conversation-list li' },
      { module: 'tools', hash: `${agent}/tools`, ready: '#tool-form button[type="submit"]' },
      { module: 'mcp-servers', hash: `${agent}/mcp-servers`, ready: '#add-server .note, #add-server-form' },
      { module: 'website-chat', hash: `${agent}/website-chat`, ready: '#channel-form' },
      { module: 'documents', hash: `${agent}/documents`, ready: '#document-list[data-count]' },
      { module: 'agent-versions', hash: `${agent}/versions`, ready: '#version-list li + li' },
      { module: 'agent-tests', hash: `${agent}/tests`, ready: '#run-list li + li' },
      { module: 'transcript', hash: `${agent}/conversations/${endUserConversation}`, ready: '#transcript li' },
      { module: 'chat', hash: `${agent}/chat/staff-chat`, ready: '#messages [data-state="approval-requested"]' },
      { module: 'approvals', hash: '#/approvals', ready: '#approval-list[data-loaded="true"]' },
      { module: 'members', hash: '#/members', ready: '#member-list[data-loaded="true"]' },
      { module: 'clients', hash: '#/clients', ready: '#bill-table[data-loaded="true"]' },
      { module: 'plans', hash: '#/plans', ready: '#plan-list[data-loaded="true"]' },
      { module: 'branding', hash: '#/branding', ready: '#branding-form[data-loaded="true"]' },
      { module: 'settings', hash: '#/settings', ready: '#budget-state:not(:empty)' },
    ];
    t.deepEqual(
      [...new Set(pages.map((page) => page.module))].sort(),
      [...new Set(ROUTED)].sort(),
      'every page the router loads is walked',
    );

    const page = await open(t, origin, '#/usage');
    const failed: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    for (const { module, hash, ready } of pages) {
      failed.length = 0;
      // A full load each time (a change of hash alone would leave the previous page's elements for a moment).
      await page.goto('about:blank');
      await page.goto(`${origin}/dashboard${hash}`);
      await page.locator(ready).first().waitFor({ state: 'attached', timeout: 20_000 });
      t.deepEqual(repeatedNames(await namedControls(page)), [], `${module}: names shared by controls that do different things`);
      t.deepEqual(await seriousViolations(page), [], `${module}: axe`);
      t.deepEqual(failed, [], `${module}: failed requests`);
      await screenshot(page, `console-names-${module}`);
      t.log(`${module}: checked`);
    }
    await page.context().close();
  },
);
