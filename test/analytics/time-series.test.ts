import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import type { TestApp } from '../helpers/app.ts';
import { createTenant, getUsage, insertUsage, once } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const fixture = once(async (app: TestApp) => {
  const tenant = await createTenant(app.db.pool, 'series');
  await insertUsage(app.db.pool, tenant.organizationId, [
    // 2026-03-08 is the spring-forward day in New York (02:00 local is skipped; UTC-5 then UTC-4).
    { at: '2026-03-08T06:30:00.000Z', modelId: 'm-a', actionType: 'user_interaction', costUsd: '0.5' },
    { at: '2026-03-08T07:10:00.000Z', modelId: 'm-b', actionType: 'guardrail_check', costUsd: '0.25', inputTokens: 40, outputTokens: 0 },
    { at: '2026-03-08T07:50:00.000Z', modelId: 'm-a', actionType: 'title_generation', source: 'byok', costUsd: '1' },
    { at: '2026-03-10T12:00:00.000Z', modelId: 'm-a', costUsd: '2' },
  ]);
  return tenant;
});

const series = async (t: { context: { t: TestApp } }, query: Record<string, string>, status: number) =>
  getUsage(t.context.t, (await fixture(t.context.t)).ownerToken, 'time-series', query).expect(status);

for (const [label, from, to, expected] of [
  ['exactly 7 days', '2026-03-01T00:00:00.000Z', '2026-03-08T00:00:00.000Z', 'hour'],
  ['7 days and 1 ms', '2026-03-01T00:00:00.000Z', '2026-03-08T00:00:00.001Z', 'day'],
  ['exactly 90 days', '2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z', 'day'],
  ['90 days and 1 ms', '2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.001Z', 'week'],
  ['exactly 365 days', '2025-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z', 'week'],
  ['365 days and 1 ms', '2025-06-01T00:00:00.000Z', '2026-06-01T00:00:00.001Z', 'month'],
] as const) {
  test(`a window of ${label} is bucketed by ${expected} when granularity is omitted`, async (t) => {
    const response = await series(t, { from, to }, 200);
    t.is(response.body.granularity, expected);
  });
}

test('hourly buckets in New York on the spring-forward day are dense, 23 of them, with the usage in its local hour', async (t) => {
  const response = await series(
    t,
    { from: '2026-03-08T05:00:00.000Z', to: '2026-03-09T04:00:00.000Z', granularity: 'hour', timezone: 'America/New_York' },
    200,
  );
  const buckets = response.body.buckets as { bucket: string; totalTokens: number; totalCostUsd: number }[];
  t.is(buckets.length, 23);
  t.is(response.body.timezone, 'America/New_York');
  t.is(buckets[0]!.bucket, '2026-03-08T05:00:00.000Z');
  // 01:00 EST starts at 06:00Z; 03:00 EDT (the next local hour) starts at 07:00Z.
  t.deepEqual(buckets[1], { bucket: '2026-03-08T06:00:00.000Z', totalTokens: 110, totalCostUsd: 0.5 });
  t.deepEqual(buckets[2], { bucket: '2026-03-08T07:00:00.000Z', totalTokens: 150, totalCostUsd: 1.25 });
  t.is(buckets.filter((b) => b.totalTokens === 0).length, 21);
});

test('a day bucket is a local calendar day and buckets are dense with zeros', async (t) => {
  const response = await series(
    t,
    { from: '2026-03-08T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z', granularity: 'day', timezone: 'America/New_York' },
    200,
  );
  t.deepEqual(response.body.buckets, [
    // The first bucket is the local day containing `from` (March 7 in New York); 06:30Z on
    // March 8 is 01:30 EST, so all three rows of that morning fall on local March 8.
    { bucket: '2026-03-07T05:00:00.000Z', totalTokens: 0, totalCostUsd: 0 },
    { bucket: '2026-03-08T05:00:00.000Z', totalTokens: 260, totalCostUsd: 1.75 },
    { bucket: '2026-03-09T04:00:00.000Z', totalTokens: 0, totalCostUsd: 0 },
    { bucket: '2026-03-10T04:00:00.000Z', totalTokens: 110, totalCostUsd: 2 },
  ]);
});

test('groupBy model and groupBy action give each bucket a series per key, zeros included', async (t) => {
  const query = { from: '2026-03-08T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z', granularity: 'day' };
  const byModel = await series(t, { ...query, groupBy: 'model' }, 200);
  t.deepEqual(byModel.body.buckets[0], {
    bucket: '2026-03-08T00:00:00.000Z',
    totalTokens: 260,
    totalCostUsd: 1.75,
    series: { 'm-a': { totalTokens: 220, totalCostUsd: 1.5 }, 'm-b': { totalTokens: 40, totalCostUsd: 0.25 } },
  });
  t.deepEqual(byModel.body.buckets[1].series, { 'm-a': { totalTokens: 0, totalCostUsd: 0 }, 'm-b': { totalTokens: 0, totalCostUsd: 0 } });
  const byAction = await series(t, { ...query, groupBy: 'action' }, 200);
  t.deepEqual(Object.keys(byAction.body.buckets[0].series), ['guardrail_check', 'title_generation', 'user_interaction']);
  t.deepEqual(byAction.body.buckets[2].series.user_interaction, { totalTokens: 110, totalCostUsd: 2 });
  const none = await series(t, query, 200);
  t.false('series' in none.body.buckets[0]);
});

test('the source filter keeps only the rows of that token pool', async (t) => {
  const query = { from: '2026-03-08T00:00:00.000Z', to: '2026-03-09T00:00:00.000Z', granularity: 'day' };
  t.is((await series(t, { ...query, source: 'byok' }, 200)).body.buckets[0].totalCostUsd, 1);
  t.is((await series(t, { ...query, source: 'system' }, 200)).body.buckets[0].totalCostUsd, 0.75);
  t.is((await series(t, { ...query, source: 'all' }, 200)).body.buckets[0].totalCostUsd, 1.75);
});

test('week buckets start on Monday and month buckets on the 1st, local to the zone', async (t) => {
  const weeks = await series(
    t,
    { from: '2026-03-04T00:00:00.000Z', to: '2026-03-20T00:00:00.000Z', granularity: 'week', timezone: 'Asia/Kolkata' },
    200,
  );
  t.deepEqual(
    weeks.body.buckets.map((b: { bucket: string }) => b.bucket),
    ['2026-03-01T18:30:00.000Z', '2026-03-08T18:30:00.000Z', '2026-03-15T18:30:00.000Z'],
  );
  const months = await series(
    t,
    { from: '2026-02-10T00:00:00.000Z', to: '2026-04-02T00:00:00.000Z', granularity: 'month', timezone: 'Asia/Kathmandu' },
    200,
  );
  t.deepEqual(
    months.body.buckets.map((b: { bucket: string }) => b.bucket),
    ['2026-01-31T18:15:00.000Z', '2026-02-28T18:15:00.000Z', '2026-03-31T18:15:00.000Z'],
  );
  t.is(months.body.buckets[1].totalCostUsd, 3.75);
});

for (const [label, query, path] of [
  ['from equal to to', { from: '2026-03-08T00:00:00.000Z', to: '2026-03-08T00:00:00.000Z' }, ['query', 'from']],
  ['from after to', { from: '2026-03-09T00:00:00.000Z', to: '2026-03-08T00:00:00.000Z' }, ['query', 'from']],
  ['an unknown granularity', { from: '2026-03-08T00:00:00Z', to: '2026-03-09T00:00:00Z', granularity: 'minute' }, ['query', 'granularity']],
  ['an unknown groupBy', { from: '2026-03-08T00:00:00Z', to: '2026-03-09T00:00:00Z', groupBy: 'agent' }, ['query', 'groupBy']],
  ['an unknown source', { from: '2026-03-08T00:00:00Z', to: '2026-03-09T00:00:00Z', source: 'free' }, ['query', 'source']],
  ['an unknown timezone', { from: '2026-03-08T00:00:00Z', to: '2026-03-09T00:00:00Z', timezone: 'Mars/Olympus' }, ['query', 'timezone']],
  ['a missing from', { to: '2026-03-09T00:00:00Z' }, ['query', 'from']],
  ['a from that is not a date-time', { from: 'yesterday', to: '2026-03-09T00:00:00Z' }, ['query', 'from']],
  [
    'a window needing 10,001 hourly buckets',
    { from: '2026-01-01T00:00:00Z', to: '2027-02-21T17:00:00Z', granularity: 'hour' },
    ['query', 'granularity'],
  ],
] as const) {
  test(`time-series answers 400 for ${label}`, async (t) => {
    const response = await series(t, query as Record<string, string>, 400);
    t.is(response.body.message, 'Validation failed');
    t.true(response.body.errors.some((error: { path: string[] }) => JSON.stringify(error.path) === JSON.stringify(path)));
  });
}

test('a window of exactly 10,000 hourly buckets is accepted', async (t) => {
  // 2026-01-01T00:00Z plus 10,000 hours is 2027-02-21T16:00Z.
  const response = await series(t, { from: '2026-01-01T00:00:00Z', to: '2027-02-21T16:00:00Z', granularity: 'hour' }, 200);
  t.is(response.body.buckets.length, 10_000);
});
