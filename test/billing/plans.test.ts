import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { PLANS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { as, owner } from './support.ts';

const test = withTestApp(anyTest);

const NO_LIMITS = { maxAgents: null, maxUsers: null, maxEndUserMessagesPerMonth: null, maxDocumentsMb: null, monthlyUsageUsd: null };

test('a plan is created with its price, markup and limits, and lists them; money is stored exactly', async (t) => {
  const created = await as(t, await owner(t))
    .post('/api/plans', {
      name: 'Growth',
      isPublic: true,
      isActive: true,
      priceUsdPerMonth: 49.99,
      usageMarkupPercent: 30,
      limits: { maxAgents: 3, maxUsers: 4, maxEndUserMessagesPerMonth: 1000, maxDocumentsMb: 50, monthlyUsageUsd: 20.1 },
    })
    .expect(201);
  t.like(created.body, {
    name: 'Growth',
    priceUsdPerMonth: 49.99,
    usageMarkupPercent: 30,
    maxUsers: 4,
    limits: { maxAgents: 3, maxUsers: 4, maxEndUserMessagesPerMonth: 1000, maxDocumentsMb: 50, monthlyUsageUsd: 20.1 },
  });
  const stored = await t.context.t.db.pool.one(sql.type(z.strictObject({ cents: z.number(), usage: z.string() }))`
    SELECT price_cents AS cents, monthly_usage_usd::text AS usage FROM plans WHERE id = ${created.body.id}`);
  t.deepEqual(stored, { cents: 4999, usage: '20.10' });
  const list = await as(t, await owner(t))
    .get('/api/plans')
    .expect(200);
  t.like(
    list.body.find((p: { id: string }) => p.id === created.body.id),
    { priceUsdPerMonth: 49.99, limits: { maxAgents: 3 } },
  );
});

test('a plan without them costs nothing, adds no markup and has no limits but its maxUsers', async (t) => {
  const list = await as(t, await owner(t))
    .get('/api/plans')
    .expect(200);
  t.like(
    list.body.find((p: { id: string }) => p.id === PLANS.starter.id),
    { priceUsdPerMonth: 0, usageMarkupPercent: 0, maxUsers: 10, limits: { ...NO_LIMITS, maxUsers: 10 } },
  );
});

test('PATCH changes the price, markup and named limits; null removes a limit, an absent one stays', async (t) => {
  const http = as(t, await owner(t));
  const created = await http
    .post('/api/plans', { name: 'Pro', isPublic: false, isActive: true, priceUsdPerMonth: 10, limits: { maxAgents: 2, maxDocumentsMb: 5 } })
    .expect(201);
  const changed = await http
    .patch(`/api/plans/${created.body.id}`, {
      priceUsdPerMonth: 12.5,
      usageMarkupPercent: 1000,
      limits: { maxAgents: null, monthlyUsageUsd: 3 },
    })
    .expect(200);
  t.like(changed.body, {
    priceUsdPerMonth: 12.5,
    usageMarkupPercent: 1000,
    limits: { maxAgents: null, maxDocumentsMb: 5, monthlyUsageUsd: 3, maxUsers: null },
  });
  const maxUsers = await http.patch(`/api/plans/${created.body.id}`, { maxUsers: 7 }).expect(200);
  t.like(maxUsers.body, { maxUsers: 7, limits: { maxUsers: 7, maxDocumentsMb: 5 } });
});

test('prices take at most 2 decimals and stay in range; markups are whole percents up to 1,000; limits are positive', async (t) => {
  const http = as(t, await owner(t));
  const base = { name: 'X', isPublic: true, isActive: true };
  const paths = async (body: object) =>
    ((await http.post('/api/plans', { ...base, ...body }).expect(400)).body.errors as { path: string[] }[]).map((e) => e.path.join('.'));
  t.deepEqual(await paths({ priceUsdPerMonth: 1.005 }), ['priceUsdPerMonth']);
  t.deepEqual(await paths({ priceUsdPerMonth: 1_000_000.01 }), ['priceUsdPerMonth']);
  t.deepEqual(await paths({ usageMarkupPercent: 1001 }), ['usageMarkupPercent']);
  t.deepEqual(await paths({ usageMarkupPercent: 2.5 }), ['usageMarkupPercent']);
  t.deepEqual(await paths({ limits: { maxAgents: 0 } }), ['limits.maxAgents']);
  t.deepEqual(await paths({ limits: { monthlyUsageUsd: 0.001 } }), ['limits.monthlyUsageUsd']);
  // Below a cent it would store as 0.00, which no limit is (the fuzzer's 5e-9 once answered 500).
  t.deepEqual(await paths({ limits: { monthlyUsageUsd: 5e-9 } }), ['limits.monthlyUsageUsd']);
  t.deepEqual(await paths({ limits: { unknown: 1 } }), ['limits.unknown']);
  t.deepEqual(await paths({ maxUsers: 3, limits: { maxUsers: 4 } }), ['limits.maxUsers']);
  // 0.29 is 28.999999999999996 cents in binary: still exactly 29 cents.
  const fine = await http.post('/api/plans', { ...base, isActive: false, priceUsdPerMonth: 0.29 }).expect(201);
  t.is(fine.body.priceUsdPerMonth, 0.29);
});
