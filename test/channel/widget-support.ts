import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext, TestFn } from 'ava';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { buildDashboard } from '../../dashboard/build.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startOpenAiPeer, type OpenAiPeer, type Reply } from '../helpers/openai-peer.ts';
import { chatConfig } from '../chat/support.ts';

export type WidgetContext = TestContext & {
  /** The service: `http://127.0.0.1:<port>`, also its `PUBLIC_BASE_URL` (the share page's origin). */
  service: string;
  /** The business's site, another loopback origin: its pages paste the snippet (`/?key=…`). */
  site: string;
  /** The same site by another name (`localhost`): an origin no channel allows. */
  otherSite: string;
  peer: OpenAiPeer;
  /** The model's next answers, in order; a plain text answer when none is left. */
  replies: Reply[];
  browser: Browser;
  open(options?: BrowserContextOptions): Promise<Page>;
};
export type W = ExecutionContext<WidgetContext>;

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * The business's page: the snippet with `key` and, for a verified user, `user` and `hash`. An
 * inline script first records the page's global names, and a page rule colours every paragraph,
 * so a test sees whether the widget added a global or took the page's styles.
 */
function sitePage(service: string, query: URLSearchParams): string {
  const attribute = (name: string, value: string | null) => (value ? ` ${name}="${value.replace(/[^\w-]/g, '')}"` : '');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<style>p { color: rgb(180, 0, 0); font-family: serif; } button { display: none; }</style></head><body>' +
    '<main><h1>Shop</h1><p id="page-text">Our products.</p></main>' +
    '<script>window.namesBefore = Object.getOwnPropertyNames(window);</script>' +
    `<script src="${service}/widget.js"${attribute('data-key', query.get('key'))}` +
    `${attribute('data-user-id', query.get('user'))}${attribute('data-user-hash', query.get('hash'))} async></script>` +
    '</body></html>'
  );
}

/**
 * A test file's app with the widget built into a folder of its own, listening on loopback with a
 * scripted model (test/helpers/openai-peer.ts), a second loopback server as the business's site,
 * and one Chromium.
 */
export function withWidget(anyTest: TestFn): TestFn<WidgetContext> {
  const dashboardRoot = join(tmpdir(), `widget-test-${randomBytes(6).toString('hex')}`);
  const test = withTestApp(anyTest) as unknown as TestFn<WidgetContext>;
  const closers: (() => Promise<void>)[] = [];
  test.serial.before(async (t) => {
    await buildDashboard(dashboardRoot, { minify: true });
    const replies: Reply[] = [];
    const peer = await startOpenAiPeer(() => replies.shift() ?? { kind: 'text', text: 'Happy to help.' });
    closers.push(() => peer.close());
    const serviceServer = createServer();
    const service = `http://127.0.0.1:${await listening(serviceServer)}`;
    const app = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url }, { publicBaseUrl: service }), dashboardRoot });
    serviceServer.on('request', app.callback());
    const siteServer = createServer((request, response) => {
      const url = new URL(request.url ?? '/', service);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(sitePage(service, url.searchParams));
    });
    const port = await listening(siteServer);
    for (const server of [serviceServer, siteServer])
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
    const browser = await launchChromium();
    closers.push(() => browser.close());
    Object.assign(t.context, {
      service,
      site: `http://127.0.0.1:${port}`,
      otherSite: `http://localhost:${port}`,
      peer,
      replies,
      browser,
      open: async (options: BrowserContextOptions = {}) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
        return context.newPage();
      },
    });
  });
  test.serial.after.always(async () => {
    for (const close of closers.reverse()) await close();
    await rm(dashboardRoot, { recursive: true, force: true });
  });
  return test;
}

/** The computed colour of the element `locator` finds. */
export const colorOf = (locator: ReturnType<Page['locator']>) =>
  locator.evaluate(
    (element) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(element).color,
  );

/** Where the focus is (the widget's focused control's name), whether its panel is hidden, and the page's new global names. */
export const widgetState = (page: Page) =>
  page.evaluate<{ focused: string | null; panelHidden: boolean | null; newGlobals: string[] }>(`(() => {
    const shadow = document.querySelector('agents-chat')?.shadowRoot;
    const active = document.activeElement === document.querySelector('agents-chat') ? shadow.activeElement : null;
    const before = new Set(window.namesBefore ?? []);
    return {
      focused: active?.getAttribute('aria-label') ?? active?.id ?? null,
      panelHidden: shadow?.querySelector('.panel')?.hidden ?? null,
      newGlobals: Object.getOwnPropertyNames(window).filter((name) => !before.has(name)),
    };
  })()`);
