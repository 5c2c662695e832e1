/**
 * The web channel's widget (docs/channel.md, "The widget"): `widget.js`'s size, raw and gzip
 * (target ≤ 30 KB gzip), and the time from navigation start to a painted launcher in Chromium,
 * the page and the service on two loopback origins (target ≤ 300 ms at p95). Each load is in a
 * fresh browser context (nothing cached), `RUNS` times. The launcher needs no API call (the session
 * opens with the panel), so the service here is the real `GET /widget.js` middleware without a
 * database. Prints one Markdown table for bench/README.md.
 *
 *   npm run bench:channel:widget [-- --runs 30]
 */
import { rm, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { buildDashboard } from '../../dashboard/build.ts';
import { widget } from '../../app/dashboard/widget.ts';
import { launchChromium } from '../../test/helpers/browser.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
const RUNS = Number(values.runs);
const SIZE_TARGET_BYTES = 30 * 1024;
const LAUNCHER_TARGET_MS = 300;

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The business's page: it notes the time of the first frame painted after the widget's element joins the body. */
const page = (service: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>' +
  '<script>new MutationObserver((changes, observer) => {' +
  "  if (!document.querySelector('agents-chat')) return; observer.disconnect();" +
  '  requestAnimationFrame(() => { window.launcherPaintedAt = performance.now(); });' +
  '}).observe(document.body, { childList: true });</script>' +
  `<script src="${service}/widget.js" data-key="agp_${'0'.repeat(32)}" async></script></body></html>`;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const root = join(tmpdir(), `widget-bench-${process.pid}`);
await buildDashboard(root, { minify: true });
const script = await readFile(join(root, 'widget.js'));
const gzipBytes = gzipSync(script, { level: 9 }).length;

const app = new Koa();
app.use(widget({ db: undefined as never }, { root }));
const serviceServer = createServer(app.callback());
const service = await listening(serviceServer);
const siteServer = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(page(service));
});
const site = await listening(siteServer);

const browser = await launchChromium();
const times: number[] = [];
try {
  for (let run = 0; run < RUNS; run += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const tab = await context.newPage();
    await tab.goto(site);
    await tab.getByRole('button', { name: 'Open the chat' }).waitFor({ state: 'visible' });
    await tab.waitForFunction('window.launcherPaintedAt !== undefined');
    times.push(await tab.evaluate<number>('window.launcherPaintedAt'));
    await context.close();
  }
} finally {
  await browser.close().catch(() => {});
  serviceServer.close();
  siteServer.close();
  await rm(root, { recursive: true, force: true });
}

const sorted = [...times].sort((a, b) => a - b);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}, Chromium ${browser.version()}`;
process.stdout.write(
  [
    `widget bench, ${new Date().toISOString().slice(0, 10)}, ${machine}, ${RUNS} cold loads`,
    '',
    '| measure | figure | target | met |',
    '|---|---|---|---|',
    `| widget.js size, raw / gzip -9 | ${kb(script.length)} / ${kb(gzipBytes)} | gzip ≤ ${kb(SIZE_TARGET_BYTES)} | ${gzipBytes <= SIZE_TARGET_BYTES ? 'yes' : 'NO'} |`,
    `| navigation start to a painted launcher, p50 / p95 / max | ${ms(percentile(sorted, 50))} / ${ms(percentile(sorted, 95))} / ${ms(sorted.at(-1)!)} | p95 ≤ ${LAUNCHER_TARGET_MS} ms | ${percentile(sorted, 95) <= LAUNCHER_TARGET_MS ? 'yes' : 'NO'} |`,
    '',
  ].join('\n'),
);
