import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);
type T = ExecutionContext<DashboardContext>;
const agent = AGENTS.support.id;
const hash = `#/agents/${agent}/website-chat`;

const auth = async (t: T) => `Bearer ${await t.context.t.login('owner@demo.test')}`;
const readChannel = async (t: T) =>
  t.context.t
    .http()
    .get(`/api/ai/agents/${agent}/channel`)
    .set('authorization', await auth(t));

async function open(t: T, options: { width?: number; clipboard?: boolean; axe?: boolean } = {}): Promise<Page> {
  const { page } = await t.context.open({
    viewport: { width: options.width ?? 1280, height: 900 },
    ...(options.clipboard ? { permissions: ['clipboard-read', 'clipboard-write'] } : {}),
    // axe-core is injected as an inline script, which the console's policy refuses.
    ...(options.axe ? { bypassCSP: true } : {}),
  });
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${t.context.origin}/dashboard${hash}`);
  await page.locator('#channel-form').waitFor();
  return page;
}

const clipboard = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
  );

const focusedName = (page: Page) =>
  page.evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document
      .activeElement;
    return active?.getAttribute('aria-label') ?? active?.getAttribute('id') ?? '';
  });

const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });

test.serial(
  'an owner puts an agent on a website: the settings are saved and shown after a reload, the snippet is copied, the share page linked',
  async (t) => {
    t.is((await readChannel(t)).status, 404);
    const page = await open(t, { clipboard: true });
    await page.locator('#website-chat-status', { hasText: 'is not on any website yet' }).waitFor();
    t.true(await page.getByRole('button', { name: 'Make a new secret' }).isDisabled(), 'no secret before the channel exists');
    t.true(await page.locator('#channel-secret-save-first').isVisible());
    // A new channel starts from the API's defaults.
    t.is(await page.getByLabel('Messages per end user per day').inputValue(), '50');
    t.true(await page.getByRole('radio', { name: 'Anyone on your pages' }).isChecked());
    t.true(await page.getByRole('radio', { name: 'Your staff' }).isChecked());
    t.regex((await page.locator('#channel-origins-count').textContent()) ?? '', /0 of at most 20/);

    await page.getByRole('button', { name: 'Add an origin' }).click();
    await page.getByRole('textbox', { name: 'Origin 1' }).fill('https://shop.example.com');
    await page.getByRole('button', { name: 'Add an origin' }).click();
    await page.getByRole('textbox', { name: 'Origin 2' }).fill('http://localhost:8080');
    await page.getByRole('radio', { name: 'The end user' }).check();
    await page.getByLabel('Messages per end user per day').fill('5');
    await page.getByLabel('Greeting').fill('Hello! Ask me about your order.');
    await page.getByRole('button', { name: 'Save website chat' }).click();
    await page.locator('#channel-save-status', { hasText: 'Saved: the chat is on.' }).waitFor();

    const saved = (await readChannel(t).then((answer) => answer.body)) as Record<string, unknown> & { publishableKey: string };
    t.like(saved, {
      enabled: true,
      allowedOrigins: ['https://shop.example.com', 'http://localhost:8080'],
      identity: 'anonymous',
      approvals: 'end_user',
      endUserMessagesPerDay: 5,
      greeting: 'Hello! Ask me about your order.',
    });
    const expected = `<script src="${t.context.origin}/widget.js" data-key="${saved.publishableKey}" async></script>`;
    t.is(await page.locator('#channel-snippet-text').textContent(), expected);
    await page.getByRole('button', { name: 'Copy the snippet', exact: true }).click();
    await page.locator('#channel-snippet-copied', { hasText: 'Copied.' }).waitFor();
    t.is(await clipboard(page), expected);
    t.is(
      await page.locator('#channel-snippet-verified-text').textContent(),
      `<script src="${t.context.origin}/widget.js" data-key="${saved.publishableKey}" data-user-id="USER_ID" data-user-hash="USER_HASH" async></script>`,
    );
    t.is(
      await page.getByRole('link', { name: `${t.context.origin}/chat/${saved.publishableKey}` }).getAttribute('href'),
      `${t.context.origin}/chat/${saved.publishableKey}`,
    );
    await screenshot(page, 'console-website-chat-saved');

    await page.reload();
    await page.getByRole('textbox', { name: 'Origin 2' }).waitFor();
    t.is(await page.getByRole('textbox', { name: 'Origin 1' }).inputValue(), 'https://shop.example.com');
    t.is(await page.getByRole('textbox', { name: 'Origin 2' }).inputValue(), 'http://localhost:8080');
    t.true(await page.getByLabel('Enabled').isChecked());
    t.true(await page.getByRole('radio', { name: 'The end user' }).isChecked());
    t.is(await page.getByLabel('Messages per end user per day').inputValue(), '5');
    t.is(await page.getByLabel('Greeting').inputValue(), 'Hello! Ask me about your order.');
    t.is(await page.locator('#channel-snippet-text').textContent(), expected);

    // Verified users only, and off: the plain snippet goes (a verified channel refuses pages without a user), the page says the chat is off.
    await page.getByRole('radio', { name: 'Only users your server vouches for' }).check();
    await page.getByLabel('Enabled').uncheck();
    await page.getByRole('button', { name: 'Save website chat' }).click();
    await page.locator('#channel-save-status', { hasText: 'Saved: the chat is off.' }).waitFor();
    t.like((await readChannel(t)).body, { enabled: false, identity: 'verified', publishableKey: saved.publishableKey });
    t.true(await page.locator('#channel-snippet').isHidden());
    t.true(await page.locator('#channel-snippet-verified').isVisible());
    t.regex((await page.locator('#channel-embed-state').textContent()) ?? '', /The chat is off/);
    t.regex((await page.locator('#channel-share-note').textContent()) ?? '', /does not open while only verified users may chat/);
    t.true(await page.locator('#channel-secret-save-first').isHidden());
    await page.context().close();
  },
);

test.serial('an origin with a path is shown with its error at its own field, and nothing is saved', async (t) => {
  const before = (await readChannel(t)).body as Record<string, unknown>;
  const page = await open(t);
  await page.getByRole('textbox', { name: 'Origin 2' }).waitFor();
  // An empty row is not sent: the API's index 2 is the fourth row.
  await page.getByRole('button', { name: 'Add an origin' }).click();
  await page.getByRole('button', { name: 'Add an origin' }).click();
  await page.getByRole('textbox', { name: 'Origin 4' }).fill('https://shop.example.com/checkout');
  await page.getByRole('button', { name: 'Save website chat' }).click();
  await page.locator('#channel-save-status', { hasText: 'Not saved: see the marked fields.' }).waitFor();
  const bad = page.getByRole('textbox', { name: 'Origin 4' });
  t.is(await bad.getAttribute('aria-invalid'), 'true');
  t.is(await focusedName(page), 'Origin 4', 'the focus is on the field in error');
  const describedBy = (await bad.getAttribute('aria-describedby')) ?? '';
  t.regex((await page.locator(`#${describedBy}`).textContent()) ?? '', /must be an exact origin/);
  t.is(await page.getByRole('textbox', { name: 'Origin 1' }).getAttribute('aria-invalid'), null);
  t.deepEqual((await readChannel(t)).body, before);
  await screenshot(page, 'console-website-chat-origin-error');

  // Mended and saved: the error goes, the empty row too.
  await bad.fill('https://checkout.example.com');
  await page.getByRole('button', { name: 'Save website chat' }).click();
  await page.locator('#channel-save-status', { hasText: 'Saved' }).waitFor();
  t.deepEqual(((await readChannel(t)).body as { allowedOrigins: string[] }).allowedOrigins, [
    'https://shop.example.com',
    'http://localhost:8080',
    'https://checkout.example.com',
  ]);
  t.is(await page.locator('#channel-origins-rows li').count(), 3);
  t.is(await page.locator('[aria-invalid="true"]').count(), 0);
  await page.context().close();
});

test.serial(
  'a new channel secret is asked for, shown once with a warning and a copy button, and the page’s Node recipe signs a user the API verifies',
  async (t) => {
    const { allowedOrigins, approvals, endUserMessagesPerDay, greeting } = (await readChannel(t)).body as Record<string, unknown>;
    const current = { allowedOrigins, approvals, endUserMessagesPerDay, greeting };
    await t.context.t
      .http()
      .put(`/api/ai/agents/${agent}/channel`)
      .set('authorization', await auth(t))
      .send({ ...current, enabled: true, identity: 'verified' })
      .expect(200);
    const page = await open(t, { clipboard: true });
    const make = page.getByRole('button', { name: 'Make a new secret' });
    await make.click();
    const dialog = page.getByRole('dialog', { name: 'Make a new channel secret?' });
    await dialog.waitFor();
    t.is(await focusedName(page), 'channel-secret-cancel', 'the safe choice has the focus');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    t.is(await focusedName(page), 'channel-secret-new', 'the focus returns to the button');

    await make.click();
    await page.getByRole('button', { name: 'Make the new secret' }).click();
    const shown = page.locator('#channel-secret-value-text');
    await shown.waitFor();
    const secret = (await shown.textContent()) ?? '';
    t.regex(secret, /^ags_[0-9A-Za-z]{40}$/);
    t.regex((await page.locator('#channel-secret-warning').textContent()) ?? '', /you will not see it again/);
    t.is(await focusedName(page), 'Copy the secret');
    await page.keyboard.press('Enter');
    await page.locator('#channel-secret-value-copied', { hasText: 'Copied.' }).waitFor();
    t.is(await clipboard(page), secret);
    await screenshot(page, 'console-website-chat-secret');

    // The recipe as the page shows it, run as the business's server would run it.
    const recipe = (await page.locator('#channel-recipe-node-text').textContent()) ?? '';
    t.regex(recipe, /createHmac\('sha256'/);
    const userId = 'customer-42';
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', `${recipe}\nconsole.log(userHash(process.argv[1]));`, userId],
      { env: { ...process.env, AGENT_CHANNEL_SECRET: secret } },
    );
    const userHash = stdout.trim();
    t.regex(userHash, /^[0-9a-f]{64}$/);
    const publishableKey = ((await readChannel(t)).body as { publishableKey: string }).publishableKey;
    const session = await t.context.t
      .http()
      .post('/api/public/sessions')
      .send({ publishableKey, user: { id: userId, hash: userHash } });
    t.is(session.status, 201);
    t.like(session.body, { endUser: { verified: true } });
    t.truthy(await page.locator('#channel-recipe-python-text').textContent());
    t.regex((await page.locator('#channel-recipe-php-text').textContent()) ?? '', /hash_hmac\('sha256', \$userId/);

    // Shown once: after a reload the page has no trace of it.
    await page.reload();
    await page.locator('#channel-form').waitFor();
    t.false(((await page.locator('body').textContent()) ?? '').includes(secret));
    await page.context().close();
  },
);

test.serial('the page fits a phone, axe finds no serious violation in its states, and origins are edited with the keyboard', async (t) => {
  const page = await open(t, { width: 375, axe: true });
  await page.getByRole('textbox', { name: 'Origin 1' }).waitFor();
  t.true((await sidewaysOverflow(page)) <= 0, 'no sideways scrolling at 375 px');
  t.deepEqual(await seriousViolations(page), [], 'axe: the page as loaded');

  // Keyboard only: Add focuses the new row, Remove gives the focus to the row that took its place.
  await page.getByRole('button', { name: 'Add an origin' }).focus();
  await page.keyboard.press('Enter');
  t.is(await focusedName(page), 'Origin 4');
  await page.keyboard.type('https://a.example.com/with/path');
  await page.getByRole('button', { name: 'Remove Origin 1' }).focus();
  await page.keyboard.press('Enter');
  t.is(await focusedName(page), 'Origin 1');
  t.is(await page.getByRole('textbox', { name: 'Origin 1' }).inputValue(), 'http://localhost:8080');
  await page.getByRole('button', { name: 'Save website chat' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('#channel-save-status', { hasText: 'Not saved' }).waitFor();
  t.is(await focusedName(page), 'Origin 3');

  await page.getByRole('button', { name: 'Make a new secret' }).click();
  await page.getByRole('button', { name: 'Make the new secret' }).click();
  await page.locator('#channel-secret-value-text').waitFor();
  t.true((await sidewaysOverflow(page)) <= 0, 'no sideways scrolling with the secret and an error shown');
  t.deepEqual(await seriousViolations(page), [], 'axe: an error and the new secret shown');
  await screenshot(page, 'console-website-chat-phone');
  await page.context().close();
});
