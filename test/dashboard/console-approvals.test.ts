import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';
import { chatConfig } from '../chat/support.ts';
import { AGENT, approvalsOfApi, bearer, onePerPage, open, overflowOf, PHONE, settled, staffChannel } from './staff-support.ts';

const test = withDashboard(anyTest, { app: { config: chatConfig() } });
const countBadge = (page: Page) => page.locator('#approvals-count');

let origin = '';

test.serial(
  'the inbox shows pending approvals with agent, end user, tool and input; Approve shows the result and the count follows; 409 is said',
  async (t) => {
    const channel = await staffChannel(t);
    origin = channel.origin;
    await channel.ask('first-chat');
    await channel.ask('second-chat');
    const pending = await approvalsOfApi(t, 'pending');
    t.is(pending.length, 2);

    const page = await open(t, origin, '#/approvals');
    await countBadge(page).and(page.locator('[data-count="2"]')).waitFor();
    t.is(await page.getByRole('link', { name: 'Approvals 2 pending' }).count(), 1, 'the count is read out with its meaning');
    await page.locator('#approval-list[data-loaded="true"]').waitFor();
    const items = page.locator('#approval-list li.approval[data-status="pending"]');
    t.is(await items.count(), 2);
    const first = page.locator(`li[data-approval-id="${pending[0]!.id}"]`);
    const text = await first.innerText();
    for (const shown of [AGENT.name, 'list_documents', `Anonymous visitor ${pending[0]!.endUser.id.slice(-8)}`, '"limit": 5'])
      t.true(text.includes(shown), shown);
    t.is(
      await first.getByRole('link', { name: 'Read the conversation' }).getAttribute('href'),
      `#/agents/${AGENT.id}/conversations/${pending[0]!.conversationId}`,
    );
    t.deepEqual(await seriousViolations(page), [], 'the inbox: axe');
    await screenshot(page, 'console-approvals');

    await first.getByRole('button', { name: 'Approve' }).click();
    await first.locator('.result[data-outcome="approved"]', { hasText: 'Approved by you' }).waitFor();
    t.regex(await first.locator('.result').innerText(), /The conversation goes on by itself\./);
    t.true(
      await first.locator('.result').evaluate((node) => node === (node.ownerDocument as { activeElement: unknown }).activeElement),
      'the answer takes the focus from the removed buttons',
    );
    await countBadge(page).and(page.locator('[data-count="1"]')).waitFor();
    const answered = (await approvalsOfApi(t, 'answered')).find((approval) => approval.id === pending[0]!.id);
    t.like(answered, { status: 'answered', approved: true });

    // Another staff member answers the second one first: Deny here is a 409, said as such.
    const second = page.locator(`li[data-approval-id="${pending[1]!.id}"]`);
    await fetch(`${origin}/api/ai/approvals/${pending[1]!.id}`, {
      method: 'POST',
      headers: { authorization: await bearer(t), 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    }).then((response) => t.is(response.status, 200));
    await second.getByLabel('Reason (optional, sent to the model on Deny)').fill('not today');
    await second.getByRole('button', { name: 'Deny' }).click();
    await second.locator('.result[data-outcome="already-answered"]', { hasText: 'Already answered' }).waitFor();
    t.true(await second.locator('.result').evaluate((node) => node.classList.contains('error')));
    await countBadge(page).waitFor({ state: 'hidden' });
    t.is(await countBadge(page).getAttribute('data-count'), '0');
    await screenshot(page, 'console-approvals-answered');

    // Pages of one (the page asks for 20): the second comes with "Show older approvals".
    await onePerPage(page, '**/api/ai/approvals?status=answered*');
    await page.getByRole('button', { name: 'Answered' }).click();
    await page.locator('#approval-list[data-status="answered"] li.approval').first().waitFor();
    t.is(await page.locator('#approval-list li.approval').count(), 1);
    await page.getByRole('button', { name: 'Show older approvals' }).click();
    await page.locator('#approval-list[data-status="answered"] li.approval').nth(1).waitFor();
    await page.getByRole('button', { name: 'Show older approvals' }).waitFor({ state: 'hidden' });
    t.deepEqual(
      await page.locator('#approval-list li.approval').evaluateAll((items) => items.map((item) => item.getAttribute('data-approval-id'))),
      (await approvalsOfApi(t, 'answered')).map((approval) => approval.id),
      'both pages, newest first, as the API lists them',
    );
    t.is(await page.getByRole('button', { name: 'Answered' }).getAttribute('aria-pressed'), 'true');
    t.is(await page.locator('#approval-list li.approval[data-status="answered"] .result[data-outcome="approved"]').count(), 2);
    await page.context().close();
  },
);

test.serial("the agent page lists its end users' conversations and opens one read-only", async (t) => {
  await settled(t);
  const token = await bearer(t);
  const listed = await t.context.t.http().get(`/api/ai/agents/${AGENT.id}/end-user-conversations`).set('authorization', token).expect(200);
  const conversations = listed.body.conversations as { id: string; title: string; messageCount: number }[];
  t.is(conversations.length, 2);
  const { page } = await t.context.open({ bypassCSP: true });
  await onePerPage(page, '**/end-user-conversations?*');
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard#/agents/${AGENT.id}`);
  const list = page.locator('#agent-conversation-list');
  await list.locator('li').first().waitFor();
  t.is(await list.locator('li').count(), 1);
  await page.getByRole('button', { name: 'Show older conversations' }).click();
  await list.locator('li').nth(1).waitFor();
  await page.getByRole('button', { name: 'Show older conversations' }).waitFor({ state: 'hidden' });
  t.deepEqual(
    await list.locator('li').evaluateAll((items) => items.map((item) => item.getAttribute('data-conversation-id'))),
    conversations.map((conversation) => conversation.id),
  );
  for (const conversation of conversations) {
    const item = list.locator(`li[data-conversation-id="${conversation.id}"]`);
    t.is(await item.getAttribute('data-messages'), String(conversation.messageCount));
    t.is(await item.getByRole('link').innerText(), conversation.title);
    t.regex(await item.innerText(), /Anonymous visitor/);
  }
  t.deepEqual(await seriousViolations(page), [], 'agent page with conversations: axe');

  const opened = conversations[0]!;
  await list.locator(`li[data-conversation-id="${opened.id}"] a`).click();
  await page.locator('#transcript li').first().waitFor();
  const detail = await t.context.t
    .http()
    .get(`/api/ai/agents/${AGENT.id}/end-user-conversations/${opened.id}`)
    .set('authorization', token)
    .expect(200);
  t.is(await page.locator('#transcript > li').count(), (detail.body.messages as unknown[]).length);
  t.is(await page.locator('h2.page-title').innerText(), opened.title);
  t.regex(await page.locator('#transcript li[data-role="user"]').first().innerText(), /list the documents/);
  t.is((await page.locator('#transcript .tool-call[data-tool="list_documents"]').count()) > 0, true);
  t.is(await page.locator('#transcript input, #transcript textarea, #transcript button').count(), 0, 'read-only: nothing to type or press');
  t.deepEqual(await seriousViolations(page), [], 'transcript: axe');
  await screenshot(page, 'console-transcript');
  await page.context().close();
});

test.serial('the usage page shows the top end users and filters the model efficiency by action type', async (t) => {
  const page = await open(t, origin, '#/usage');
  await page.locator('#panel-end-users[data-state="ready"]').waitFor();
  const from = (await page.locator('#dashboard').getAttribute('data-from'))!;
  const to = (await page.locator('#dashboard').getAttribute('data-to'))!;
  const token = await bearer(t);
  // Through the app the page talks to, with the page's query: the same (cached) answer it got.
  const get = async (path: string, query: Record<string, string>) => {
    const response = await fetch(`${origin}/api/ai/org-usage/${path}?${new URLSearchParams({ from, to, source: 'all', ...query })}`, {
      headers: { authorization: token },
    });
    t.is(response.status, 200);
    return response.json() as Promise<unknown>;
  };
  const rows = ((await get('end-users', { limit: '10' })) as { endUsers: { endUserId: string; turns: number }[] }).endUsers;
  t.true(rows.length >= 2, 'the end users of the turns above');
  t.deepEqual(
    await page.locator('#panel-end-users tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-end-user-id'))),
    rows.map((row) => row.endUserId),
  );
  t.is(
    await page.locator(`#panel-end-users tr[data-end-user-id="${rows[0]!.endUserId}"] [data-key="turns"]`).innerText(),
    String(rows[0]!.turns),
  );

  await page.getByLabel('Action (model efficiency)').selectOption('title_generation');
  await page.locator('#dashboard[data-action="title_generation"][data-loaded="true"]').waitFor();
  const models = (await get('model-efficiency', { limit: '50', action: 'title_generation' })) as { modelId: string }[];
  t.true(models.length > 0, 'titles were made for the conversations above');
  const shown = await page.locator('#panel-models tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-model')));
  t.deepEqual([...shown].sort(), models.map((row) => row.modelId).sort());
  t.deepEqual(await seriousViolations(page), [], 'usage page: axe');
  await page.context().close();
});

test.serial('on a phone the inbox, the conversations, a transcript and the usage page fit the width and pass axe', async (t) => {
  const channel = await staffChannel(t);
  await channel.ask('phone-chat');
  const page = await open(t, channel.origin, '#/approvals', PHONE);
  await page.locator('#approval-list li.approval').first().waitFor();
  t.true((await overflowOf(page)) <= 0, 'the inbox fits a phone');
  t.deepEqual(await seriousViolations(page), [], 'inbox on a phone: axe');
  await screenshot(page, 'console-approvals-phone');
  await page.locator('#approval-list li.approval').first().getByRole('button', { name: 'Approve' }).click();
  await page.locator('#approval-list .result[data-outcome="approved"]').first().waitFor();

  await page.goto(`${channel.origin}/dashboard#/agents/${AGENT.id}`);
  await page.locator('#agent-conversation-list li').first().waitFor();
  t.true((await overflowOf(page)) <= 0, 'the agent page with conversations fits a phone');
  await page.locator('#agent-conversation-list li a').first().click();
  await page.locator('#transcript li').first().waitFor();
  t.true((await overflowOf(page)) <= 0, 'a transcript fits a phone');
  t.deepEqual(await seriousViolations(page), [], 'transcript on a phone: axe');

  await page.goto(`${channel.origin}/dashboard#/usage`);
  await page.locator('#panel-end-users[data-state="ready"]').waitFor();
  t.true((await overflowOf(page)) <= 0, 'the usage page with end users fits a phone');
  t.deepEqual(await seriousViolations(page), [], 'usage page on a phone: axe');
  await page.context().close();
});

test.serial(
  "a verified end user is shown as the business's user, the name and email they gave quoted as theirs: inbox and transcript",
  async (t) => {
    const channel = await staffChannel(t);
    const session = await channel.ask('named-chat', { id: 'cust-1', name: 'Support Lead', email: 'lead@shop.example.com' });
    const given = '"Support Lead", "lead@shop.example.com" (given by the end user)';
    const page = await open(t, channel.origin, '#/approvals');
    const item = page.locator('#approval-list li.approval', { hasText: 'Verified user "cust-1"' });
    await item.waitFor();
    t.is(await item.locator('dd.given').innerText(), given);
    t.regex(await item.locator('h3').innerText(), /^list_documents for Verified user "cust-1"$/);
    t.deepEqual(await seriousViolations(page), [], 'inbox with a named end user: axe');
    const conversationId = (await approvalsOfApi(t, 'pending')).find(
      (approval) => approval.endUser.id === session.endUser.id,
    )!.conversationId;
    await page.goto(`${channel.origin}/dashboard#/agents/${AGENT.id}/conversations/${conversationId}`);
    await page.locator('#transcript li').first().waitFor();
    t.is(await page.locator('#transcript-status').innerText(), `With Verified user "cust-1": ${given}. Read-only.`);
    await page.context().close();
  },
);
