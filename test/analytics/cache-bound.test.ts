import anyTest from 'ava';
import request from 'supertest';
import { AnalyticsCache } from '../../app/analytics/analytics-cache.ts';
import { analyticsCacheStats } from '../../app/analytics/cache.ts';
import { testConfig, withTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, insertUsage, once } from './support.ts';

// Limits on: the analytics routes' own limit is part of what is tested here.
const test = withTestApp(anyTest, { seed: false, rateLimits: true });

const fixture = once(async (app: TestApp) => {
  const tenant = await createTenant(app.db.pool, 'busy');
  const other = await createTenant(app.db.pool, 'quiet');
  await insertUsage(
    app.db.pool,
    tenant.organizationId,
    Array.from({ length: 48 }, (_, hour) => ({ at: new Date(Date.UTC(2026, 0, 1, hour)).toISOString() })),
  );
  return { tenant, other };
});

/** A manual clock: `advance(ms)` moves it; starts at a fixed instant. */
function manualClock(start = Date.UTC(2026, 5, 1)) {
  let now = start;
  return { now: () => now, date: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

test('distinct answers beyond the byte budget evict the least recently used, and the charged bytes never pass the budget', (t) => {
  const clock = manualClock();
  const cache = new AnalyticsCache({ maxBytes: 64 * 1024, ttlMs: 300_000, now: clock.now });
  const answer = Buffer.alloc(1000, 'x');
  for (let i = 0; i < 1000; i++) {
    cache.set(`query-${i}`, answer);
    t.true(cache.stats().bytes <= 64 * 1024);
  }
  const stats = cache.stats();
  t.true(stats.entries > 40 && stats.entries < 64, `entries ${stats.entries}`);
  t.is(stats.evictions, 1000 - stats.entries);
  t.is(cache.get('query-0'), undefined);
  t.is(cache.get('query-999'), answer);
  t.like(cache.stats(), { hits: 1, misses: 1 });
});

test('an answer stays fresh for 300 seconds on the injected clock and is a miss after, without counting as an eviction', (t) => {
  const clock = manualClock();
  const cache = new AnalyticsCache({ maxBytes: 1024 * 1024, ttlMs: 300_000, now: clock.now });
  const answer = Buffer.from('{"ok":true}');
  cache.set('q', answer);
  clock.advance(300_000);
  t.is(cache.get('q'), answer);
  clock.advance(1);
  t.is(cache.get('q'), undefined);
  t.like(cache.stats(), { hits: 1, misses: 1, evictions: 0, entries: 0 });
});

test('an answer larger than the whole budget is answered but not kept', (t) => {
  const cache = new AnalyticsCache({ maxBytes: 4096, ttlMs: 300_000, now: Date.now });
  cache.set('big', Buffer.alloc(8192));
  t.is(cache.get('big'), undefined);
  t.like(cache.stats(), { entries: 0, bytes: 0 });
});

test('one token sending distinct time-series and heatmap queries keeps the cache within its budget, answers all of them, and reports evictions', async (t) => {
  const { tenant } = await fixture(t.context.t);
  const clock = manualClock(Date.now());
  const maxBytes = 32 * 1024;
  const app = t.context.t.rebuild({ config: testConfig({ analyticsCacheMaxBytes: maxBytes }), clock: clock.date });
  const server = app.callback();
  const distinct = 150;
  for (let i = 0; i < distinct; i++) {
    // Every request a different window: the attack, each one a new cache entry.
    const from = new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString();
    for (const endpoint of ['time-series', 'heatmap']) {
      const response = await request(server)
        .get(`/api/ai/org-usage/${endpoint}`)
        .query({ from, to: '2026-01-03T00:00:00Z' })
        .set('authorization', `Bearer ${tenant.ownerToken}`);
      t.is(response.status, 200);
      t.is(response.headers['x-cache'], 'miss');
    }
    t.true(analyticsCacheStats(app.deps).bytes <= maxBytes);
  }
  const stats = analyticsCacheStats(app.deps);
  t.is(stats.misses, 2 * distinct);
  t.true(stats.evictions > 0);
  t.is(stats.evictions, 2 * distinct - stats.entries);
  // A minute later the next miss writes one line with the counters.
  clock.advance(60_000);
  await request(server)
    .get('/api/ai/org-usage/summary')
    .query({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' })
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .expect(200);
  const line = t.context.t.logs.entries.findLast((entry) => entry['component'] === 'analytics-cache');
  t.like(line, { msg: 'analytics cache', maxBytes, misses: 2 * distinct + 1, hits: 0 });
  t.true(typeof line?.['evictions'] === 'number' && line['evictions'] >= stats.evictions);
});

test('each analytics route allows 600 requests a minute per user: the 601st is 429, another user and the next minute are not limited', async (t) => {
  const { tenant, other } = await fixture(t.context.t);
  const clock = manualClock(Date.now());
  const server = t.context.t.rebuild({ clock: clock.date }).callback();
  const ask = (token: string, forwardedFor: string) =>
    request(server)
      .get('/api/ai/org-usage/summary')
      // An unknown parameter: refused after the limiter has counted it, so the test stays cheap.
      .query({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', unknown: '1' })
      .set('authorization', `Bearer ${token}`)
      .set('x-forwarded-for', forwardedFor);
  const statuses = new Map<number, number>();
  for (let i = 0; i < 600; i++) {
    // Another address every time: the window is the user's.
    const { status } = await ask(tenant.ownerToken, `198.51.100.${i % 250}`);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  t.deepEqual([...statuses], [[400, 600]]);
  const denied = await ask(tenant.ownerToken, '198.51.100.1');
  t.is(denied.status, 429);
  t.is(denied.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is((await ask(other.ownerToken, '198.51.100.1')).status, 400);
  clock.advance(60_000);
  t.is((await ask(tenant.ownerToken, '198.51.100.1')).status, 400);
});
