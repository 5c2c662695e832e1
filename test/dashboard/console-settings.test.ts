import anyTest from 'ava';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';
import { usageEvent } from '../ingest/support.ts';

const test = withDashboard(anyTest);

test.serial('an owner creates an API key, sees it once with a copy button, and the key sends one usage event', async (t) => {
  const { page } = await t.context.open({ permissions: ['clipboard-read', 'clipboard-write'] });
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByLabel('Name').fill('Edge worker');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('textbox', { name: 'The key Edge worker' });
  await shown.waitFor();
  const key = await shown.inputValue();
  t.regex(key, /^agk_/);
  t.regex((await page.locator('#api-key-created').textContent()) ?? '', /will not be shown again/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  t.is(
    await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    ),
    key,
  );
  const item = page.locator('#api-key-list li', { hasText: 'Edge worker' });
  await item.waitFor();
  t.regex((await item.textContent()) ?? '', /never used/);
  t.false((await page.locator('#api-key-list').textContent())?.includes(key), 'the list never shows the whole key');
  await screenshot(page, 'console-api-key-created');

  const ingest = await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .send({ events: [usageEvent()] });
  t.is(ingest.status, 200);
  t.deepEqual(ingest.body, { accepted: 1, duplicates: 0 });

  // Deleted from the page: the key is refused from then on.
  await page.reload();
  await page.getByRole('button', { name: 'Delete the key Edge worker' }).click();
  await item.waitFor({ state: 'detached' });
  const refused = await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .send({ events: [usageEvent()] });
  t.is(refused.status, 401);
  await page.context().close();
});

test.serial('an owner sets the provider key, sees it configured with its last four characters, and removes it', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.getByRole('link', { name: 'Settings' }).click();
  const state = page.locator('#provider-key-state');
  await state.filter({ hasText: 'Not configured' }).waitFor();
  t.true(await page.getByRole('button', { name: 'Remove key' }).isHidden());
  await page.getByLabel('API key', { exact: true }).fill('sk-organization-key-9876');
  await page.getByRole('button', { name: 'Save key' }).click();
  await page.locator('#provider-key[data-configured="true"]').waitFor();
  t.regex((await state.textContent()) ?? '', /ending in 9876/);
  t.is(await page.getByLabel('API key', { exact: true }).inputValue(), '', 'the pasted key does not stay in the form');
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const stored = await t.context.t.http().get('/api/ai/provider-key').set('authorization', auth).expect(200);
  t.like(stored.body, { configured: true, keyLastFour: '9876' });
  t.false((await page.content()).includes('sk-organization-key-9876'), 'the key is nowhere in the page');
  await screenshot(page, 'console-provider-key');

  await page.getByRole('button', { name: 'Remove key' }).click();
  await page.locator('#provider-key[data-configured="false"]').waitFor();
  t.regex((await state.textContent()) ?? '', /^Not configured/);
  const removed = await t.context.t.http().get('/api/ai/provider-key').set('authorization', auth).expect(200);
  t.like(removed.body, { configured: false });
  await page.context().close();
});

test.serial('a member without update on organization is told why the settings are closed to them', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'member@demo.test');
  await page.locator('#forbidden').waitFor();
  await page.getByRole('link', { name: 'Settings' }).click();
  const status = page.locator('#api-keys-status');
  await status.filter({ hasText: 'update grant on organization' }).waitFor();
  t.true(await page.locator('#api-key-form').isHidden(), 'no form that could only fail');
  t.is(await page.locator('#api-keys').getAttribute('data-state'), 'forbidden');
  await page.locator('#provider-key[data-state="forbidden"]').waitFor();
  t.regex((await page.locator('#provider-key-status').textContent()) ?? '', /update grant on organization/);
  t.true(await page.locator('#provider-key-form').isHidden());
  await screenshot(page, 'console-settings-member');
  await page.context().close();
});
