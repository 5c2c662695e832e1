import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../../seeds/demo-fixtures.ts';
import { buildDashboard } from '../../dashboard/build.ts';
import type { CreateAppOptions } from '../../app/app.ts';
import { withTestApp, type TestApp } from './app.ts';
import { launchChromium, listen } from './browser.ts';

export type DashboardContext = {
  t: TestApp;
  /** `http://127.0.0.1:<port>` of the listening app. */
  origin: string;
  browser: Browser;
  /** A page in a fresh browser context (own storage); every URL it requests is recorded. */
  open(options?: BrowserContextOptions): Promise<{ page: Page; requested: string[] }>;
  /** Additional listening servers (closed after the file). */
  serve(app: Parameters<typeof listen>[0]): Promise<string>;
};

/**
 * A test file's app over its own database with the demo data, the dashboard built into a folder
 * of its own (so parallel files never share one), a listening server and one Chromium.
 */
export function withDashboard(anyTest: TestFn, options: { app?: Partial<CreateAppOptions> } = {}): TestFn<DashboardContext> {
  const dashboardRoot = join(tmpdir(), `dashboard-test-${randomBytes(6).toString('hex')}`);
  const test = withTestApp(anyTest, { app: { ...options.app, dashboardRoot } }) as unknown as TestFn<DashboardContext>;
  const closers: (() => Promise<void>)[] = [];
  // Serial: runs after withTestApp's hook has built the app.
  test.serial.before(async (t) => {
    await buildDashboard(dashboardRoot, { minify: true });
    const serve = async (app: Parameters<typeof listen>[0]) => {
      const listening = await listen(app);
      closers.push(listening.close);
      return listening.origin;
    };
    const origin = await serve(t.context.t.app);
    const browser = await launchChromium();
    closers.push(() => browser.close());
    t.context.origin = origin;
    t.context.browser = browser;
    t.context.serve = serve;
    t.context.open = async (options = {}) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'America/New_York', ...options });
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      return { page, requested };
    };
  });
  test.serial.after.always(async () => {
    for (const close of closers.reverse()) await close();
    await rm(dashboardRoot, { recursive: true, force: true });
  });
  return test;
}

/** Fills in the sign-in form the way a person would (label, typing, Enter). */
export async function signIn(page: Page, origin: string, email: string, password = DEMO_PASSWORD): Promise<void> {
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Password').press('Enter');
}

/** Waits until the reports of the current settings have all answered. */
export async function waitForReports(page: Page, expected: Record<string, string> = {}): Promise<void> {
  const conditions = Object.entries({ loaded: 'true', ...expected })
    .map(([name, value]) => `[data-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${value}"]`)
    .join('');
  await page.locator(`#dashboard${conditions}`).waitFor({ state: 'attached', timeout: 20_000 });
}
