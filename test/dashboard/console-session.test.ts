import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);

/** The page's storage, as seen from code run in the page (the tests' types have no DOM). */
type InPage = { localStorage: Storage; sessionStorage: Storage };
type Storage = { length: number; key(index: number): string | null; getItem(key: string): string | null };

const storedValues = (page: Page) =>
  page
    .evaluate(() => {
      const { localStorage, sessionStorage } = globalThis as unknown as InPage;
      // No named functions in here: the test runner's transform would reference a helper the page lacks.
      return [localStorage, sessionStorage].map((storage) =>
        Array.from({ length: storage.length }, (_, i) => storage.getItem(storage.key(i) ?? '') ?? ''),
      );
    })
    .then(([local = [], session = []]) => ({ local, session }));

test.serial('a session outlives its access token: the page refreshes it silently before expiry and keeps working', async (t) => {
  // Access tokens of 3 seconds instead of 15 minutes: the page refreshes at 80% of that.
  const origin = await t.context.serve(t.context.t.rebuild({ accessTokenTtlSeconds: 3 }));
  const { page, requested } = await t.context.open();
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page, { state: 'ready' });
  const firstToken = await page.locator('body').getAttribute('data-session-refreshes');
  t.is(firstToken, '0');
  // Two refreshes: more than twice the first token's lifetime has passed.
  await page.locator('body[data-session-refreshes="2"]').waitFor({ state: 'attached', timeout: 15_000 });
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('heading', { name: 'Support Assistant' }).waitFor();
  t.is(await page.locator('#notice').isHidden(), true, 'no sign-in notice');
  t.true(requested.filter((url) => url.endsWith('/api/identity/auth/refresh')).length >= 2);

  const stored = await storedValues(page);
  t.deepEqual(stored.local, [], 'nothing in localStorage');
  t.true(
    stored.session.every((value) => !/eyJ[\w-]+\.[\w-]+\./.test(value)),
    'no access token (JWT) in sessionStorage, only the refresh token',
  );
  await page.context().close();
});

test.serial('a call answered 401 gets one silent refresh and is retried, without signing the user out', async (t) => {
  const { page, requested } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  let refused = 0;
  // The API refuses the access token once, as it would after the token expired.
  await page.route('**/api/ai/agents', async (route) => {
    if (refused++ === 0)
      return route.fulfill({ status: 401, contentType: 'application/json', body: '{"statusCode":401,"message":"Unauthorized"}' });
    return route.continue();
  });
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('heading', { name: 'Research Agent' }).waitFor();
  t.is(refused, 2, 'the call, then its retry');
  t.is(requested.filter((url) => url.endsWith('/api/identity/auth/refresh')).length, 1);
  t.is(await page.locator('body').getAttribute('data-session-refreshes'), '1');
  await page.context().close();
});

test.serial('a reload resumes the tab’s session without the password, and sign-out revokes it on the server', async (t) => {
  const { page, requested } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.reload();
  await waitForReports(page, { state: 'ready' });
  t.is(await page.locator('#who-email').textContent(), 'owner@demo.test');

  const [stored] = (await storedValues(page)).session;
  const { refreshToken } = JSON.parse(stored ?? '{}') as { refreshToken?: string };
  t.truthy(refreshToken);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.is(await page.locator('#notice').textContent(), 'Signed out.');
  t.true(requested.some((url) => url.endsWith('/api/identity/auth/logout')));
  t.deepEqual(await storedValues(page), { local: [], session: [] });
  await screenshot(page, 'signed-out');
  // The refresh token the page held is no longer accepted.
  const refresh = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken });
  t.is(refresh.status, 401);
  await page.context().close();
});
