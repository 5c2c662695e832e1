import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest from 'ava';
import request from 'supertest';
import { buildDashboard } from '../../dashboard/build.ts';
import { withTestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';

const dashboardRoot = join(tmpdir(), `dashboard-serving-${randomBytes(6).toString('hex')}`);
const test = withTestApp(anyTest, { seed: false, app: { dashboardRoot } });

let assets: { script: string; stylesheet: string };
test.serial.before(async () => {
  assets = await buildDashboard(dashboardRoot);
});
test.after.always(() => rm(dashboardRoot, { recursive: true, force: true }));

test('GET /dashboard is the page, revalidated on every load and restricted to its own origin', async (t) => {
  const response = await t.context.t.http().get('/dashboard').expect(200);
  t.regex(response.headers['content-type'] ?? '', /^text\/html/);
  t.is(response.headers['cache-control'], 'no-cache');
  t.regex(response.headers['content-security-policy'] ?? '', /default-src 'none'; script-src 'self'; style-src 'self'.*connect-src 'self'/);
  // An agency's logo is an https URL the browser loads (docs/billing.md, "Branding"): images only.
  t.regex(response.headers['content-security-policy'] ?? '', /img-src 'self' data: https:;/);
  t.regex(response.text, new RegExp(`<script type="module" src="/dashboard/assets/${assets.script}">`));
  t.notRegex(response.text, /https?:\/\//, 'nothing is loaded from another origin');
  const etag = response.headers.etag ?? '';
  t.truthy(etag);
  await t.context.t.http().get('/dashboard').set('If-None-Match', etag).expect(304);
});

test('the hashed script and stylesheet are cached for a year as immutable', async (t) => {
  for (const [name, type] of [
    [assets.script, /^text\/javascript/],
    [assets.stylesheet, /^text\/css/],
  ] as const) {
    t.regex(name, /^main-[A-Z0-9]{8}\.(js|css)$/);
    const response = await t.context.t.http().get(`/dashboard/assets/${name}`).expect(200);
    t.regex(response.headers['content-type'] ?? '', type);
    t.is(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    t.is(response.headers['x-content-type-options'], 'nosniff');
  }
});

test('only files of the build are served; other names are the usual 404', async (t) => {
  for (const path of [
    '/dashboard/assets/main.js',
    '/dashboard/assets/..%2F..%2Fpackage.json',
    '/dashboard/assets/../index.html',
    '/dashboard/nothing',
  ]) {
    const response = await t.context.t.http().get(path);
    t.is(response.status, 404, path);
    t.like(response.body, { statusCode: 404 });
  }
});

test('the page is read-only: other methods are a 405 naming GET', async (t) => {
  const response = await t.context.t.http().post('/dashboard').send({}).expect(405);
  t.is(response.headers.allow, 'GET, HEAD');
  t.deepEqual(response.body, { statusCode: 405, message: 'Method not allowed' });
});

test('the dashboard adds no API route: the OpenAPI document lists only /api paths, none of them the dashboard', async (t) => {
  const document = (await t.context.t.http().get('/api/openapi.json').expect(200)).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = Object.keys(document.paths);
  t.true(paths.length > 0);
  t.deepEqual(
    paths.filter((path) => !path.startsWith('/api/') || /dashboard/.test(path)),
    [],
  );
  const operations = Object.values(document.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  t.is(operations, t.context.t.app.routes.length, 'one operation per declared route, as before');
  await t.context.t.http().get('/api/dashboard').expect(404);
});

test('without a build the page is a 503 that says how to build it', async (t) => {
  const app = t.context.t.rebuild({ dashboardRoot: join(dashboardRoot, 'missing') });
  const response = await request(app.callback()).get('/dashboard').expect(503);
  t.deepEqual(response.body, { statusCode: 503, message: 'The dashboard is not built: run `npm run build:dashboard` (npm start does it)' });
});

test('the browser tests fail, not skip, where Chromium is missing', async (t) => {
  await t.throwsAsync(launchChromium('/nonexistent/chromium'), {
    message: /Chromium not found at \/nonexistent\/chromium: run apt-get install -y chromium/,
  });
});
