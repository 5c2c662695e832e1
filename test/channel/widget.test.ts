import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { putChannel } from './support.ts';
import { colorOf, widgetState, withWidget, type W } from './widget-support.ts';

const test = withWidget(anyTest);
const GREETING = 'Hello! Ask me about your order.';

const openWidget = async (page: Page) => {
  await page.getByRole('button', { name: 'Open the chat' }).click();
  return page.getByRole('dialog', { name: 'Support Assistant' });
};

const ask = async (page: Page, text: string) => {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  // Send waits until the previous answer is over (the button is disabled meanwhile).
  await page.getByRole('button', { name: 'Send' }).click();
};

const channelFor = (t: W, body: Record<string, unknown> = {}) =>
  putChannel(t as never, { allowedOrigins: [t.context.site], greeting: GREETING, ...body });

test.serial('a page of an allowed origin chats through the widget and finds its conversation after a reload', async (t) => {
  const { publishableKey } = await channelFor(t);
  t.context.replies.push({ kind: 'text', text: 'Refunds take five to seven days.' });
  const page = await t.context.open();
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  const panel = await openWidget(page);
  await panel.getByText(GREETING).waitFor();
  // Enter sends, as the Send button does.
  await page.getByRole('textbox', { name: 'Message' }).fill('How long do refunds take?');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await panel.getByText('Refunds take five to seven days.').waitFor();
  await panel.locator('[data-role=user]', { hasText: 'How long do refunds take?' }).waitFor();
  const stored = await page.evaluate<Record<string, string>>('({ ...localStorage })');
  t.regex(stored[`agents-chat:${publishableKey}:visitor`] ?? '', /^agv_[0-9A-Za-z]{40}$/, 'the visitor token is kept by the page origin');
  t.truthy(stored[`agents-chat:${publishableKey}:visitor:conversation`]);

  // Nothing leaks: no new global name, the page's paragraph rule does not reach the widget, and
  // the page's rule hiding every button does not hide the launcher.
  const state = await widgetState(page);
  t.deepEqual(state.newGlobals, ['namesBefore']);
  t.is(await colorOf(page.locator('#page-text')), 'rgb(180, 0, 0)');
  t.not(await colorOf(panel.getByText('Refunds take five to seven days.')), 'rgb(180, 0, 0)');

  // An answer still being written when the page reloads is followed to its end.
  t.context.replies.push({ kind: 'drip', text: 'Your parcel left our warehouse today.', everyMs: 60 });
  await ask(page, 'Where is my parcel?');
  await panel.getByText('Your parcel', { exact: false }).waitFor();
  await page.reload();
  const again = page.getByRole('dialog', { name: 'Support Assistant' });
  await again.getByText('Refunds take five to seven days.').waitFor();
  await again.getByText('Where is my parcel?').waitFor();
  await again.getByText('Your parcel left our warehouse today.').waitFor();
  await screenshot(page, 'widget-after-reload');

  // Escape closes the panel; the focus goes back to the launcher.
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Escape');
  t.like(await widgetState(page), { panelHidden: true, focused: 'Open the chat' });
  await page.context().close();
});

test.serial('a page of an origin the channel does not allow gets 403 for its session and says so', async (t) => {
  const { publishableKey } = await channelFor(t);
  const page = await t.context.open();
  await page.goto(`${t.context.otherSite}/?key=${publishableKey}`);
  // The refusal carries no CORS header, so the page sees a network failure; the browser's own log has the status.
  const network = await page.context().newCDPSession(page);
  await network.send('Network.enable');
  const statuses: number[] = [];
  network.on('Network.responseReceivedExtraInfo', (event) => statuses.push(event.statusCode));
  await page.getByRole('button', { name: 'Open the chat' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.is(
    await alert.textContent(),
    `This chat is not available on this website (${t.context.otherSite} is not among its allowed addresses).`,
  );
  t.true(await page.getByRole('textbox', { name: 'Message' }).isDisabled());
  t.true(statuses.includes(403), `statuses ${statuses.join(', ')}`);
  await page.context().close();
});

test.serial("past the day's quota the widget says so and gives the message back to the field", async (t) => {
  const { publishableKey } = await channelFor(t, { endUserMessagesPerDay: 1 });
  const page = await t.context.open();
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  const panel = await openWidget(page);
  await ask(page, 'First question');
  await panel.getByText('Happy to help.').waitFor();
  await ask(page, 'Second question');
  await page.getByRole('alert').getByText('You have sent the 1 messages allowed today. Try again tomorrow.').waitFor();
  t.is(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'Second question');
  t.is(await panel.getByText('Second question').count(), 0, 'the refused message is not in the log');
  t.false(await page.getByRole('textbox', { name: 'Message' }).isDisabled(), 'the chat stays usable');
  await page.context().close();
});

test.serial('the widget renews its session before the hour it lasts is over', async (t) => {
  const { publishableKey } = await channelFor(t);
  const page = await t.context.open();
  await page.clock.install();
  const sessions: number[] = [];
  page.on('response', (response) => {
    if (response.url().endsWith('/api/public/sessions')) sessions.push(response.status());
  });
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  await openWidget(page);
  await page.getByRole('dialog', { name: 'Support Assistant' }).getByText(GREETING).waitFor();
  t.deepEqual(sessions, [201]);
  // 3600 s, renewed 300 s before the end.
  await page.clock.fastForward('55:01');
  await page.waitForResponse((response) => response.url().endsWith('/api/public/sessions'));
  t.deepEqual(sessions, [201, 201]);
  await page.context().close();
});

test.serial('at 375 px the open widget fills the screen without sideways scrolling, and axe-core finds no serious violation', async (t) => {
  const { publishableKey } = await channelFor(t, { approvals: 'end_user' });
  const page = await t.context.open({ viewport: { width: 375, height: 700 } });
  await page.goto(`${t.context.site}/?key=${publishableKey}`);
  const panel = await openWidget(page);
  await ask(page, 'Hello');
  await panel.getByText('Happy to help.').waitFor();
  const box = await panel.boundingBox();
  t.truthy(box);
  t.true(box!.x >= 0 && box!.width <= 375, `panel at ${JSON.stringify(box)}`);
  t.is(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0);
  await screenshot(page, 'widget-375');
  t.deepEqual(await seriousViolations(page), []);
  await page.context().close();
});

test.serial('the share page is the same chat as a whole page on the service; an unknown key is a 404', async (t) => {
  const { publishableKey } = await channelFor(t);
  t.context.replies.push({ kind: 'text', text: 'We ship worldwide.' });
  const page = await t.context.open();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const answer = await page.goto(`${t.context.service}/chat/${publishableKey}`);
  t.is(answer?.status(), 200);
  t.is(await page.title(), 'Support Assistant');
  const panel = page.getByRole('dialog', { name: 'Support Assistant' });
  await panel.getByText(GREETING).waitFor();
  await ask(page, 'Do you ship abroad?');
  await panel.getByText('We ship worldwide.').waitFor();
  t.deepEqual(errors, [], 'the share page policy refuses nothing the widget does');
  const missing = await page.goto(`${t.context.service}/chat/agp_${'x'.repeat(32)}`);
  t.is(missing?.status(), 404);
  await page.context().close();
});

test.serial('widget.js is one script any page may load, cached and revalidated', async (t) => {
  const answer = await fetch(`${t.context.service}/widget.js`, { headers: { origin: t.context.otherSite } });
  t.is(answer.status, 200);
  t.like(Object.fromEntries(answer.headers), {
    'content-type': 'text/javascript; charset=utf-8',
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
    'cache-control': 'public, max-age=300',
  });
  t.regex(await answer.text(), /attachShadow/);
  const again = await fetch(`${t.context.service}/widget.js`, { headers: { 'if-none-match': answer.headers.get('etag') ?? '' } });
  t.is(again.status, 304);
  t.is((await fetch(`${t.context.service}/widget.js`, { method: 'POST' })).status, 405);
});
