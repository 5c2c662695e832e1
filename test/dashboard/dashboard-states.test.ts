import { TZDate } from '@date-fns/tz';
import anyTest from 'ava';
import { addDays } from 'date-fns/addDays';
import { format } from 'date-fns/format';
import { startOfDay } from 'date-fns/startOfDay';
import { subDays } from 'date-fns/subDays';
import { areaRoutes } from '../../app/routes.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);

/** The page's `sessionStorage`, as seen from code run in the page (the tests' types have no DOM). */
type InPage = { sessionStorage: { setItem(key: string, value: string): void; length: number } };

test.serial('a member without the read grant sees why there is nothing to show, not a blank page', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'member@demo.test');
  const message = page.getByRole('heading', { name: 'No access to usage analytics' });
  await message.waitFor();
  t.true(await message.isVisible());
  t.regex((await page.locator('#forbidden').textContent()) ?? '', /read.*grant on\s+ai\.agent/s);
  t.true(await page.locator('#dashboard').isHidden());
  t.true(await page.getByRole('button', { name: 'Sign out' }).isVisible());
  await screenshot(page, 'member-403');
  await page.context().close();
});

test.serial('a wrong password is answered on the form and nothing else happens', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test', 'not-the-password');
  await t.notThrowsAsync(page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor());
  t.true(await page.locator('#dashboard').isHidden());
  await page.context().close();
});

test.serial('a session the API no longer accepts goes back to sign-in with a notice', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  // What a revoked or expired refresh token looks like to the page: the API refuses to refresh it.
  await page.evaluate(() => {
    const storage = (globalThis as unknown as InPage).sessionStorage;
    storage.setItem('console.session', JSON.stringify({ refreshToken: 'revoked-refresh-token', email: 'owner@demo.test' }));
  });
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.locator('#notice').textContent(), 'Your session has ended. Sign in again.');
  t.true(await page.locator('#dashboard').isHidden());
  t.is(await page.evaluate(() => (globalThis as unknown as InPage).sessionStorage.length), 0, 'the refused token is forgotten');
  await screenshot(page, 'session-ended-401');
  await page.context().close();
});

test.serial('an organization without usage gets an empty state in every panel', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@other.test');
  await waitForReports(page, { state: 'ready' });
  const states = await page
    .locator('#dashboard section.panel')
    .evaluateAll((panels) => panels.map((panel) => panel.getAttribute('data-state')));
  t.deepEqual(states, ['empty', 'empty', 'empty', 'empty', 'empty', 'empty', 'empty']);
  t.true(await page.getByText('No usage in this window.').first().isVisible());
  await screenshot(page, 'empty');
  await page.context().close();
});

test.serial('every panel says it is loading until its answer arrives', async (t) => {
  const { page } = await t.context.open();
  // Answers held back until the loading state has been read (the API still answers them then).
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/ai/org-usage/**', async (route) => {
    await released;
    await route.continue();
  });
  await signIn(page, t.context.origin, 'owner@demo.test');
  await page.locator('#dashboard[data-loaded="false"]').waitFor();
  const busy = await page
    .locator('#dashboard section.panel')
    .evaluateAll((panels) => panels.map((panel) => panel.getAttribute('aria-busy')));
  t.deepEqual(busy, ['true', 'true', 'true', 'true', 'true', 'true', 'true']);
  t.is(await page.locator('#status').textContent(), 'Loading…');
  await screenshot(page, 'loading');
  release();
  await waitForReports(page);
  t.is(await page.locator('#panel-cost').getAttribute('aria-busy'), 'false');
  await page.context().close();
});

test.serial('a custom window with fewer than seven days of data shows the insufficient-data projection', async (t) => {
  const { page } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  // Three local days in the browser's zone (New York), ending two days ago: inside the demo usage.
  const first = startOfDay(subDays(new TZDate(Date.now(), 'America/New_York'), 4));
  const from = new Date(first.getTime()).toISOString();
  const to = new Date(addDays(first, 3).getTime()).toISOString();
  await page.getByLabel('Window').selectOption('custom');
  await page.getByLabel('From (first day)').fill(format(first, 'yyyy-MM-dd'));
  await page.getByLabel('To (last day, included)').fill(format(addDays(first, 2), 'yyyy-MM-dd'));
  await page.locator(`#dashboard[data-from="${from}"][data-loaded="true"]`).waitFor();
  t.is(await page.locator('#dashboard').getAttribute('data-to'), to);
  const token = await t.context.t.login('owner@demo.test');
  const answer = await t.context.t
    .http()
    .get('/api/ai/org-usage/projection')
    .query({ from, to, source: 'all' })
    .set('authorization', `Bearer ${token}`)
    .expect(200);
  t.like(answer.body, { status: 'insufficient_data', minDaysRequired: 7 });
  t.true((answer.body as { daysAvailable: number }).daysAvailable > 0, 'the demo data has usage on those days');
  const shown = page.locator('#panel-projection .insufficient');
  t.is(await shown.getAttribute('data-days-available'), String((answer.body as { daysAvailable: number }).daysAvailable));
  t.regex((await shown.textContent()) ?? '', /at least 7 days with usage/);
  await screenshot(page, 'projection-insufficient-data');
  await page.context().close();
});

test.serial('too many sign-in attempts are answered with the time to wait', async (t) => {
  // The same app with the documented rate limits on: 10 logins per 15 minutes per IP.
  const limited = await t.context.serve(t.context.t.rebuild({ rateLimits: true }));
  for (let attempt = 0; attempt < 10; attempt++) {
    const response = await fetch(`${limited}/api/identity/auth/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@demo.test', password: 'wrong-password' }),
    });
    t.is(response.status, 401);
  }
  const { page } = await t.context.open();
  await signIn(page, limited, 'owner@demo.test');
  const alert = page.getByRole('alert').filter({ hasText: 'Too many sign-in attempts.' });
  await alert.waitFor();
  t.regex((await alert.textContent()) ?? '', /Try again in \d+ seconds\./);
  await screenshot(page, 'sign-in-429');
  await page.context().close();
});

test.serial('an analytics answer refused with 429 says how long to wait and offers to try again', async (t) => {
  // A deployment that limits the heatmap to one request a minute per IP (the service itself leaves analytics
  // unlimited): the same routes, the heatmap's declaration with that limit and every other one without its own.
  const routes = areaRoutes.map(({ rateLimit: _declared, ...route }) =>
    route.path === '/ai/org-usage/heatmap'
      ? { ...route, rateLimit: { limit: 1, windowMs: '1m', identifierType: 'ip', source: 'project' } as const }
      : route,
  );
  const limited = await t.context.serve(t.context.t.rebuild({ rateLimits: true, routes }));
  const { page } = await t.context.open();
  await signIn(page, limited, 'owner@demo.test');
  await waitForReports(page, { state: 'ready' });
  await page.getByLabel('Source').selectOption('system');
  await waitForReports(page, { source: 'system', state: 'rate-limited' });
  t.regex((await page.locator('#status').textContent()) ?? '', /^Too many requests\. Try again in \d+ seconds\./);
  t.is(await page.locator('#panel-heatmap').getAttribute('data-state'), 'error');
  t.is(await page.locator('#panel-cost').getAttribute('data-state'), 'ready', 'the other reports still show');
  t.true(await page.locator('#status').getByRole('button', { name: 'Try again' }).isVisible());
  await screenshot(page, 'reports-429');
  await page.context().close();
});

test.serial('the page works from the keyboard alone: sign in, change the window, sort the table', async (t) => {
  const { page } = await t.context.open();
  await page.goto(`${t.context.origin}/dashboard`);
  const focused = () =>
    page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id);
  t.is(await focused(), 'email', 'the email field has the focus at once');
  await page.keyboard.type('owner@demo.test');
  await page.keyboard.press('Tab');
  t.is(await focused(), 'password');
  await page.keyboard.type('demo-password-1');
  await page.keyboard.press('Enter');
  await waitForReports(page, { state: 'ready' });

  await page.keyboard.press('Tab'); // from <main> to the first control
  t.is(await focused(), 'range');
  await page.keyboard.press('ArrowDown'); // Last 30 days -> Last 90 days
  await waitForReports(page, { state: 'ready' });
  const root = page.locator('#dashboard');
  const days =
    (new Date((await root.getAttribute('data-to')) ?? '').getTime() - new Date((await root.getAttribute('data-from')) ?? '').getTime()) /
    86_400_000;
  t.true(days >= 89.9 && days <= 90.1, `a 90-day window (${days})`);

  const sortByCost = page.locator('#panel-models button[data-sort="totalCostUsd"]');
  await sortByCost.focus();
  await page.keyboard.press('Enter');
  t.is(await page.locator('#panel-models th[aria-sort="ascending"] button').getAttribute('data-sort'), 'totalCostUsd');
  const focusedSort = await page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { dataset: { sort?: string } } | null } }).document.activeElement?.dataset
        .sort,
  );
  t.is(focusedSort, 'totalCostUsd', 'the focus stays on the header button');
  await page.context().close();
});
