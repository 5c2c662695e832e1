import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Koa from 'koa';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it). `CHROMIUM_PATH` overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots of the browser tests (git-ignored). */
export const TEST_OUTPUT_DIR = join('test-output', 'dashboard');

/**
 * Launches Chromium headless with a fresh, empty profile (playwright-core creates a temporary
 * user-data-dir per launch) and without any network of its own: no QUIC, no background
 * fetches, no component updates, no sync. A missing Chromium fails the test run, never skips it.
 */
export async function launchChromium(executablePath = CHROMIUM_PATH): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: run apt-get install -y chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A real listening server on 127.0.0.1 and an OS-chosen port; the browser needs one. */
export async function listen(app: Koa): Promise<{ server: Server; origin: string; close(): Promise<void> }> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Saves a full-page screenshot as `TEST_OUTPUT_DIR/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  await page.screenshot({ path: join(TEST_OUTPUT_DIR, `${name}.png`), fullPage: true });
}
