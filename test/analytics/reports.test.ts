import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, getUsage, insertUsage, once, price, type UsageRow } from './support.ts';

const test = withTestApp(anyTest, { seed: false });
const FROM = '2026-02-02T00:00:00.000Z';
const TO = '2026-02-09T00:00:00.000Z';
const latencies = [120, 80, 300, 95, 410, 150, 220, 99, 101, 1000, 45];

const fixture = once(async (app: TestApp) => {
  const tenant = await createTenant(app.db.pool, 'reports');
  const rows: UsageRow[] = latencies.map((latencyMs, i) => ({
    at: `2026-02-03T1${i % 10}:00:00.000Z`,
    modelId: 'rep/fast',
    latencyMs,
    costUsd: '0.1',
    actionType: i % 2 ? 'guardrail_check' : 'user_interaction',
  }));
  rows.push(
    // No latency data at all for this model.
    { at: '2026-02-04T08:00:00.000Z', modelId: 'rep/silent', costUsd: '0.5', inputTokens: 1000, cacheReadTokens: 3000 },
    {
      at: '2026-02-04T09:00:00.000Z',
      modelId: 'rep/priced',
      costUsd: '0.5',
      inputTokens: 1000,
      cacheReadTokens: 1_000_000,
      latencyMs: 500,
    },
    { at: '2026-02-04T09:30:00.000Z', modelId: 'rep/priced', source: 'byok', costUsd: '0.3', inputTokens: 2000, cacheReadTokens: 500_000 },
    // Sunday 2026-02-08 23:30 UTC is Monday 05:00 in Kolkata (+05:30).
    { at: '2026-02-08T23:30:00.000Z', modelId: 'rep/late', costUsd: '0.2', outputTokens: 5 },
  );
  await insertUsage(app.db.pool, tenant.organizationId, rows);
  await price(app.db.pool, [{ modelId: 'rep/priced', inputUsdPerMTok: 3, outputUsdPerMTok: 15, cacheReadUsdPerMTok: 0.3 }]);
  return tenant;
});

const get = async (t: { context: { t: TestApp } }, endpoint: string, query: Record<string, string | number>, status = 200) =>
  getUsage(t.context.t, (await fixture(t.context.t)).ownerToken, endpoint, { from: FROM, to: TO, ...query }).expect(status);

test('model efficiency sorts by cost, gives p95 equal to percentile_cont(0.95) and null latency without latency data', async (t) => {
  const { body } = await get(t, 'model-efficiency', {});
  t.deepEqual(
    body.map((m: { modelId: string }) => m.modelId),
    ['rep/fast', 'rep/priced', 'rep/silent', 'rep/late'],
  );
  const reference = await t.context.t.db.pool.oneFirst(sql.type(z.object({ p95: z.number() }))`
    SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY v) AS p95 FROM unnest(${sql.array(latencies, 'int4')}) v`);
  t.is(body[0].p95LatencyMs, reference);
  t.is(body[0].avgLatencyMs, latencies.reduce((a, b) => a + b, 0) / latencies.length);
  t.is(body[0].executionsCount, 11);
  t.is(body[0].totalTokens, 11 * 110);
  t.deepEqual(body[2], {
    modelId: 'rep/silent',
    avgLatencyMs: null,
    p95LatencyMs: null,
    totalCostUsd: 0.5,
    totalTokens: 4010,
    executionsCount: 1,
  });
  // One latency among two rows: the row without latency is ignored, not counted as 0.
  t.is(body[1].avgLatencyMs, 500);
  t.is(body[1].p95LatencyMs, 500);
});

test('model efficiency honours limit, the action filter and ties by model id', async (t) => {
  t.deepEqual(
    (await get(t, 'model-efficiency', { limit: 2 })).body.map((m: { modelId: string }) => m.modelId),
    ['rep/fast', 'rep/priced'],
  );
  const guardrail = (await get(t, 'model-efficiency', { action: 'guardrail_check' })).body;
  t.is(guardrail.length, 1);
  t.is(guardrail[0].executionsCount, 5);
  // rep/priced (system) and rep/silent cost 0.5 each: the tie is broken by model id.
  t.deepEqual(
    (await get(t, 'model-efficiency', { source: 'system' })).body.map((m: { modelId: string }) => m.modelId),
    ['rep/fast', 'rep/priced', 'rep/silent', 'rep/late'],
  );
});

for (const [query, path] of [
  [{ limit: 0 }, 'limit'],
  [{ limit: 51 }, 'limit'],
  [{ limit: 'many' }, 'limit'],
  [{ action: 'chat' }, 'action'],
] as const) {
  test(`model efficiency answers 400 for ${JSON.stringify(query)}`, async (t) => {
    const { body } = await get(t, 'model-efficiency', query, 400);
    t.deepEqual(body.errors[0].path, ['query', path]);
  });
}

test('the heatmap is sparse and uses the local day of week and hour of the zone', async (t) => {
  const utc = (await get(t, 'heatmap', {})).body;
  t.is(utc.timezone, 'UTC');
  // Cells come sorted by day of week (Sunday first) and hour.
  t.deepEqual(utc.cells[0], { dayOfWeek: 0, hour: 23, totalTokens: 105, totalCostUsd: 0.2 });
  // Ten hours on Tuesday, 08:00 and 09:00 (two rows) on Wednesday, 23:00 on Sunday.
  t.is(utc.cells.length, 10 + 2 + 1);
  const kolkata = (await get(t, 'heatmap', { timezone: 'Asia/Kolkata' })).body;
  t.is(kolkata.timezone, 'Asia/Kolkata');
  t.deepEqual(
    kolkata.cells.find((c: { dayOfWeek: number }) => c.dayOfWeek === 1),
    { dayOfWeek: 1, hour: 5, totalTokens: 105, totalCostUsd: 0.2 },
  );
  // 2026-02-03 (Tuesday) 10:00Z and 10 rows after it: 15:30 to 00:30 in Kolkata, so hours 15..23 Tuesday and 0 Wednesday.
  t.deepEqual(
    kolkata.cells.filter((c: { dayOfWeek: number }) => c.dayOfWeek === 2).map((c: { hour: number }) => c.hour),
    [15, 16, 17, 18, 19, 20, 21, 22, 23],
  );
  t.is((await get(t, 'heatmap', { timezone: 'Nowhere/Special' }, 400)).body.errors[0].path[1], 'timezone');
});

test('cache savings default to the system pool, price only priced models and count the others', async (t) => {
  const system = (await get(t, 'cache-savings', {})).body;
  // rep/priced system row: 1,000,000 cached tokens at (3 - 0.3) USD per million.
  t.deepEqual(system, {
    estimatedSavingsUsd: 2.7,
    hitRate: 1_003_000 / (1_003_000 + 11 * 100 + 1000 + 1000 + 100),
    totalCacheReadTokens: 1_003_000,
    totalInputTokens: 1_003_000 + 11 * 100 + 1000 + 1000 + 100,
    skippedModelsCount: 3,
  });
  t.deepEqual(system, (await get(t, 'cache-savings', { source: 'system' })).body);
  const byok = (await get(t, 'cache-savings', { source: 'byok' })).body;
  t.deepEqual(byok, {
    estimatedSavingsUsd: 1.35,
    hitRate: 500_000 / 502_000,
    totalCacheReadTokens: 500_000,
    totalInputTokens: 502_000,
    skippedModelsCount: 0,
  });
  const empty = (await get(t, 'cache-savings', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' })).body;
  t.deepEqual(empty, { estimatedSavingsUsd: 0, hitRate: 0, totalCacheReadTokens: 0, totalInputTokens: 0, skippedModelsCount: 0 });
});

test('summary, daily and by-agent report the totals of the window', async (t) => {
  const summary = (await get(t, 'summary', {})).body;
  t.is(summary.executionsCount, 15);
  t.is(summary.modelsCount, 4);
  t.is(summary.cacheReadTokens, 1_503_000);
  const daily = (await get(t, 'daily', {})).body;
  t.is(daily.days.length, 7);
  t.deepEqual(daily.days[1], {
    date: '2026-02-03',
    totalTokens: 1210,
    inputTokens: 1100,
    outputTokens: 110,
    cacheReadTokens: 0,
    totalCostUsd: 1.1,
    executionsCount: 11,
  });
  const byAgent = (await get(t, 'by-agent', {})).body;
  t.deepEqual(
    byAgent.map((a: { agentId: string | null; executionsCount: number }) => [a.agentId, a.executionsCount]),
    [[null, 15]],
  );
});
