import { createHmac } from 'node:crypto';
import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { putChannel, rotateSecret, agentId } from './support.ts';
import { withWidget, type W } from './widget-support.ts';

const test = withWidget(anyTest);

const ask = async (page: Page, text: string) => {
  await page.getByRole('button', { name: 'Open the chat' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  // Send waits until the previous answer is over (the button is disabled meanwhile).
  await page.getByRole('button', { name: 'Send' }).click();
};

async function channelWithApprovals(t: W, approvals: 'staff' | 'end_user') {
  const token = await t.context.t.login('owner@demo.test');
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agentId}/tools`)
    .set('authorization', `Bearer ${token}`)
    .send({ tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] })
    .expect(200);
  const channel = await putChannel(t as never, { allowedOrigins: [t.context.site], approvals });
  t.context.replies.push({ kind: 'tool-call', toolName: 'list_documents', input: {} }, { kind: 'text', text: 'You have a few documents.' });
  return { ...channel, token };
}

test.serial('with approvals by the end user, the widget shows the tool call with Approve and Deny, and Approve runs it', async (t) => {
  const { publishableKey } = await channelWithApprovals(t, 'end_user');
  const page = await t.context.open();
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  await ask(page, 'Which documents do I have?');
  const tool = page.getByRole('group', { name: 'Tool list_documents' });
  await tool.getByText('Needs your approval').waitFor();
  t.true(await tool.getByRole('button', { name: 'Deny' }).isVisible());
  t.deepEqual(await seriousViolations(page), [], 'axe-core, with the approval open');
  await tool.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('You have a few documents.').waitFor();
  await tool.getByText('Done').waitFor();
  t.is(await tool.getByRole('button', { name: 'Approve' }).count(), 0);
  await page.context().close();
});

test.serial('with approvals by staff, the widget waits for a person and follows the turn once staff approve', async (t) => {
  const { publishableKey, token } = await channelWithApprovals(t, 'staff');
  const page = await t.context.open();
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  await ask(page, 'Which documents do I have?');
  const tool = page.getByRole('group', { name: 'Tool list_documents' });
  await tool.getByText('Waiting for a person to approve').waitFor();
  t.is(await tool.getByRole('button').count(), 0, 'no Approve or Deny for the end user');

  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const pending = (await (await fetch(`${t.context.service}/api/ai/approvals?status=pending`, { headers })).json()) as {
    approvals: { id: string }[];
  };
  t.is(pending.approvals.length, 1);
  const answered = await fetch(`${t.context.service}/api/ai/approvals/${pending.approvals[0]!.id}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ approved: true }),
  });
  t.is(answered.status, 200);
  await page.getByText('You have a few documents.').waitFor({ timeout: 20_000 });
  await tool.getByText('Done').waitFor();
  await page.context().close();
});

test.serial('data-user-id and data-user-hash make the session verified; no visitor token is kept', async (t) => {
  const { publishableKey } = await putChannel(t as never, { allowedOrigins: [t.context.site], identity: 'verified' });
  const secret = await rotateSecret(t as never);
  const hash = createHmac('sha256', secret).update('customer-42').digest('hex');
  const page = await t.context.open();
  await page.goto(`${t.context.site}/?key=${publishableKey}&user=customer-42&hash=${hash}`);
  const session = page.waitForResponse((response) => response.url().endsWith('/api/public/sessions'));
  await ask(page, 'Hello');
  const answer = await session;
  t.is(answer.status(), 201);
  t.like(await answer.json(), { endUser: { verified: true } });
  await page.getByText('Happy to help.').waitFor();
  const stored = await page.evaluate<string[]>('Object.keys(localStorage)');
  t.deepEqual(stored, [`agents-chat:${publishableKey}:user:customer-42:conversation`]);
  await page.context().close();
});
