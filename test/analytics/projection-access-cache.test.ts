import anyTest from 'ava';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, getUsage, insertUsage, once } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const fixture = once(async (app: TestApp) => {
  const linear = await createTenant(app.db.pool, 'linear');
  const sparse = await createTenant(app.db.pool, 'sparse');
  const other = await createTenant(app.db.pool, 'other');
  // Daily cost 1 + t on January 1..7 (t = 0..6): an exact line, so s = 0.
  await insertUsage(
    app.db.pool,
    linear.organizationId,
    [0, 1, 2, 3, 4, 5, 6].map((t) => ({ at: `2026-01-0${t + 1}T12:00:00.000Z`, costUsd: String(1 + t) })),
  );
  // Six days with data (two rows on one of them).
  await insertUsage(
    app.db.pool,
    sparse.organizationId,
    [1, 2, 3, 5, 8, 8, 9].map((day) => ({ at: `2026-01-${String(day).padStart(2, '0')}T01:00:00.000Z` })),
  );
  await insertUsage(app.db.pool, other.organizationId, [{ at: '2026-01-02T00:00:00.000Z', costUsd: '9' }]);
  return { linear, sparse, other };
});

test('projection answers insufficient_data with 6 days of data', async (t) => {
  const { sparse } = await fixture(t.context.t);
  const { body } = await getUsage(t.context.t, sparse.ownerToken, 'projection', {
    from: '2026-01-01T00:00:00Z',
    to: '2026-01-15T00:00:00Z',
  }).expect(200);
  t.deepEqual(body, { status: 'insufficient_data', minDaysRequired: 7, daysAvailable: 6 });
});

test('projection with 7 days on an exact line adds the predicted remaining days and has a zero-width interval', async (t) => {
  const { linear } = await fixture(t.context.t);
  const { body } = await getUsage(t.context.t, linear.ownerToken, 'projection', {
    from: '2026-01-01T00:00:00Z',
    to: '2026-01-08T00:00:00Z',
  }).expect(200);
  // actual = 1 + ... + 7 = 28; remaining days January 8..31 are t = 7..30, predicted 1 + t each: 24 + 444 = 468.
  t.deepEqual(body, { status: 'ok', actual: 28, projected: 496, lowerBound: 496, upperBound: 496, confidencePct: 80 });
});

test('projection of a window ending on the last day of the month equals the actual cost', async (t) => {
  const { linear } = await fixture(t.context.t);
  const { body } = await getUsage(t.context.t, linear.ownerToken, 'projection', {
    from: '2026-01-01T00:00:00Z',
    to: '2026-02-01T00:00:00Z',
  }).expect(200);
  t.deepEqual(body, { status: 'ok', actual: 28, projected: 28, lowerBound: 28, upperBound: 28, confidencePct: 80 });
});

test('a noisy history gets an 80% interval from t(0.90, n-2), floored below at the actual cost', async (t) => {
  const app = t.context.t;
  const tenant = await createTenant(app.db.pool, 'noisy');
  const costs = [2, 4, 3, 6, 5, 7, 6];
  await insertUsage(
    app.db.pool,
    tenant.organizationId,
    costs.map((c, i) => ({ at: `2026-04-0${i + 1}T10:00:00.000Z`, costUsd: String(c) })),
  );
  const { body } = await getUsage(app, tenant.ownerToken, 'projection', {
    from: '2026-04-01T00:00:00Z',
    to: '2026-04-28T00:00:00Z',
  }).expect(200);
  // Hand computation: x = 0..6, mean 3, Sxx = 28, Sxy = 20 -> b = 5/7, a = 33/7 - 15/7 = 18/7;
  // residuals x 7 = -4, 5, -7, 9, -3, 6, -6 -> SS = 252/49 = 36/7 -> s = sqrt(36/35);
  // remaining April 28..30: t = 27, 28, 29 (k = 3).
  const a = 18 / 7;
  const b = 5 / 7;
  const predicted = [27, 28, 29].reduce((sum, x) => sum + a + b * x, 0);
  const s = Math.sqrt(36 / 35);
  const t90 = 1.475884048824; // t(0.90, 5), from statistical tables
  const half = t90 * s * Math.sqrt(3 + 9 / 7 + (27 - 3 + 28 - 3 + 29 - 3) ** 2 / 28);
  t.is(body.status, 'ok');
  t.is(body.actual, 33);
  t.true(Math.abs(body.projected - (33 + predicted)) < 1e-9);
  t.true(Math.abs(body.upperBound - (33 + predicted + half)) < 1e-9);
  t.true(Math.abs(body.lowerBound - Math.max(33, 33 + predicted - half)) < 1e-9);
});

test('an x-org-id header naming another organization is a 403', async (t) => {
  const { linear, other } = await fixture(t.context.t);
  const response = await getUsage(
    t.context.t,
    linear.ownerToken,
    'summary',
    { from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00Z' },
    { 'x-org-id': other.organizationId },
  ).expect(403);
  t.deepEqual(response.body, { statusCode: 403, message: 'Forbidden' });
  const own = await getUsage(
    t.context.t,
    linear.ownerToken,
    'summary',
    { from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00Z' },
    { 'x-org-id': linear.organizationId },
  ).expect(200);
  t.is(own.body.totalCostUsd, 28);
});

for (const endpoint of ['time-series', 'projection', 'model-efficiency', 'heatmap', 'cache-savings', 'summary', 'daily', 'by-agent']) {
  test(`${endpoint} is a 403 without read on ai.agent and a 401 without a token`, async (t) => {
    const { linear } = await fixture(t.context.t);
    const query = { from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00Z' };
    await getUsage(t.context.t, linear.memberToken, endpoint, query).expect(403);
    await t.context.t.http().get(`/api/ai/org-usage/${endpoint}`).query(query).expect(401);
    t.is((await getUsage(t.context.t, linear.ownerToken, endpoint, query)).status, 200);
  });
}

test('a repeated query is a cache hit, shared between an omitted and an explicit default, never across organizations', async (t) => {
  const { linear, other } = await fixture(t.context.t);
  const app = t.context.t.rebuild();
  const server = app.callback();
  const ask = async (token: string, query: Record<string, string>) => {
    const { default: request } = await import('supertest');
    return request(server).get('/api/ai/org-usage/time-series').query(query).set('authorization', `Bearer ${token}`).expect(200);
  };
  const window = { from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00Z' };
  const first = await ask(linear.ownerToken, window);
  t.is(first.headers['x-cache'], 'miss');
  const again = await ask(linear.ownerToken, window);
  t.is(again.headers['x-cache'], 'hit');
  t.deepEqual(again.body, first.body);
  const explicit = await ask(linear.ownerToken, { ...window, source: 'all', groupBy: 'none', timezone: 'UTC', granularity: 'hour' });
  t.is(explicit.headers['x-cache'], 'hit');
  const otherOrg = await ask(other.ownerToken, window);
  t.is(otherOrg.headers['x-cache'], 'miss');
  const costs = (body: { buckets: { totalCostUsd: number }[] }) => body.buckets.map((b) => b.totalCostUsd).filter((c) => c > 0);
  t.deepEqual(costs(otherOrg.body), [9]);
  t.deepEqual(costs(first.body), [1, 2, 3, 4, 5, 6, 7]);
  const different = await ask(linear.ownerToken, { ...window, source: 'byok' });
  t.is(different.headers['x-cache'], 'miss');
});
