import anyTest from 'ava';
import fc from 'fast-check';
import { projectFutureTotal } from '@agents/analytics';
import { sql } from 'slonik';
import { z } from 'zod';
import { remainingDaysOfMonth } from '../../app/analytics/projection.ts';
import { withTestApp } from '../helpers/app.ts';
import { createTenant, getUsage, insertUsage, type UsageRow } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const BASE = Date.parse('2026-01-05T00:00:00.000Z');
const SPAN_MS = 40 * 86_400_000;
const MODELS = ['p/a', 'p/b', 'p/c', 'p/d'];
const ACTIONS = ['user_interaction', 'guardrail_check', 'title_generation', 'rag_query_embedding', 'document_indexing'] as const;
// No DST transition falls in January-February in these zones, so PostgreSQL's date_trunc is a fair reference.
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Europe/Berlin'];

const rowArb = fc.record({
  offset: fc.integer({ min: 0, max: SPAN_MS - 1 }),
  modelId: fc.constantFrom(...MODELS),
  actionType: fc.constantFrom(...ACTIONS),
  source: fc.constantFrom('system' as const, 'byok' as const),
  inputTokens: fc.integer({ min: 0, max: 5000 }),
  outputTokens: fc.integer({ min: 0, max: 2000 }),
  cacheReadTokens: fc.integer({ min: 0, max: 5000 }),
  cost: fc.integer({ min: 0, max: 10_000_000 }),
  latencyMs: fc.option(fc.integer({ min: 0, max: 9000 }), { nil: null }),
});
const caseArb = fc.record({
  rows: fc.array(rowArb, { minLength: 0, maxLength: 60 }),
  a: fc.integer({ min: 0, max: SPAN_MS }),
  b: fc.integer({ min: 0, max: SPAN_MS }),
  source: fc.constantFrom('system', 'byok', 'all'),
  timezone: fc.constantFrom(...ZONES),
  granularity: fc.constantFrom('hour', 'day', 'week', 'month'),
  limit: fc.integer({ min: 1, max: 5 }),
});

const close = (actual: number | null, expected: number | null) =>
  actual === expected || (actual !== null && expected !== null && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)));

test('every endpoint agrees with straightforward SQL over the raw rows', async (t) => {
  const app = t.context.t;
  const db = app.db.pool;
  await fc.assert(
    fc.asyncProperty(caseArb, async (c) => {
      if (c.a === c.b) return;
      const tenant = await createTenant(db, 'prop');
      const org = tenant.organizationId;
      await insertUsage(
        db,
        org,
        c.rows.map((r): UsageRow => ({
          at: new Date(BASE + r.offset).toISOString(),
          modelId: r.modelId,
          actionType: r.actionType,
          source: r.source,
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
          cacheReadTokens: r.cacheReadTokens,
          costUsd: (r.cost / 1e7).toFixed(7),
          latencyMs: r.latencyMs,
        })),
      );
      const from = new Date(BASE + Math.min(c.a, c.b)).toISOString();
      const to = new Date(BASE + Math.max(c.a, c.b)).toISOString();
      const srcFilter = c.source === 'all' ? sql.fragment`` : sql.fragment`AND source = ${c.source}`;
      const where = sql.fragment`organization_id = ${org} AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz ${srcFilter}`;
      const ask = (endpoint: string, query: Record<string, string | number>) =>
        getUsage(app, tenant.ownerToken, endpoint, { from, to, source: c.source, ...query });

      // time-series
      const hours = (Date.parse(to) - Date.parse(from)) / 3_600_000;
      if (!(c.granularity === 'hour' && hours > 9000)) {
        const series = (await ask('time-series', { granularity: c.granularity, timezone: c.timezone }).expect(200)).body;
        const ref = await db.any(sql.type(z.object({ bucket: z.string(), tokens: z.coerce.number(), cost: z.number() }))`
          SELECT (date_trunc(${c.granularity}, created_at AT TIME ZONE ${c.timezone}) AT TIME ZONE ${c.timezone}) AS bucket,
                 sum(input_tokens + output_tokens + cache_read_tokens) AS tokens, sum(cost_usd)::float8 AS cost
          FROM usage_events WHERE ${where} GROUP BY 1`);
        const byStart = new Map<string, { totalTokens: number; totalCostUsd: number }>(
          series.buckets.map((b: { bucket: string; totalTokens: number; totalCostUsd: number }) => [b.bucket, b]),
        );
        for (const r of ref) {
          const got = byStart.get(r.bucket);
          t.truthy(got, `bucket ${r.bucket}`);
          t.is(got!.totalTokens, r.tokens);
          t.true(close(got!.totalCostUsd, r.cost));
        }
        const nonZero = series.buckets.filter((b: { totalTokens: number; totalCostUsd: number }) => b.totalTokens || b.totalCostUsd).length;
        t.true(nonZero <= ref.length);
      }

      // heatmap
      const heat = (await ask('heatmap', { timezone: c.timezone }).expect(200)).body;
      const heatRef = await db.any(sql.type(
        z.object({ dayOfWeek: z.number(), hour: z.number(), totalTokens: z.coerce.number(), totalCostUsd: z.number() }),
      )`
        SELECT extract(dow FROM created_at AT TIME ZONE ${c.timezone})::int AS "dayOfWeek", extract(hour FROM created_at AT TIME ZONE ${c.timezone})::int AS hour,
               sum(input_tokens + output_tokens + cache_read_tokens) AS "totalTokens", sum(cost_usd)::float8 AS "totalCostUsd"
        FROM usage_events WHERE ${where} GROUP BY 1, 2
        HAVING sum(input_tokens + output_tokens + cache_read_tokens) > 0 OR sum(cost_usd) > 0 ORDER BY 1, 2`);
      t.deepEqual(heat.cells, heatRef);

      // model efficiency
      const models = (await ask('model-efficiency', { limit: c.limit }).expect(200)).body;
      const modelsRef = await db.any(sql.type(
        z.object({
          modelId: z.string(),
          avg: z.number().nullable(),
          p95: z.number().nullable(),
          cost: z.number(),
          tokens: z.coerce.number(),
          n: z.coerce.number(),
        }),
      )`
        SELECT model_id AS "modelId", avg(latency_ms)::float8 AS avg, percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95,
               sum(cost_usd)::float8 AS cost, sum(input_tokens + output_tokens + cache_read_tokens) AS tokens, count(*) AS n
        FROM usage_events WHERE ${where} GROUP BY model_id ORDER BY sum(cost_usd) DESC, model_id COLLATE "C" LIMIT ${c.limit}`);
      t.deepEqual(
        models.map((m: { modelId: string }) => m.modelId),
        modelsRef.map((m) => m.modelId),
      );
      modelsRef.forEach((r, i) => {
        const m = models[i];
        t.true(close(m.avgLatencyMs, r.avg) && close(m.p95LatencyMs, r.p95) && close(m.totalCostUsd, r.cost));
        t.is(m.totalTokens, r.tokens);
        t.is(m.executionsCount, r.n);
      });

      // cache savings (the test database prices none of these models)
      const savings = (await ask('cache-savings', {}).expect(200)).body;
      const savingsRef = await db.one(sql.type(z.object({ cr: z.coerce.number(), inp: z.coerce.number(), models: z.coerce.number() }))`
        SELECT coalesce(sum(cache_read_tokens), 0) AS cr, coalesce(sum(input_tokens + cache_read_tokens), 0) AS inp, count(DISTINCT model_id) AS models
        FROM usage_events WHERE ${where}`);
      t.deepEqual(savings, {
        estimatedSavingsUsd: 0,
        hitRate: savingsRef.inp === 0 ? 0 : savingsRef.cr / savingsRef.inp,
        totalCacheReadTokens: savingsRef.cr,
        totalInputTokens: savingsRef.inp,
        skippedModelsCount: savingsRef.models,
      });

      // projection
      const projection = (await ask('projection', {}).expect(200)).body;
      const days = await db.any(sql.type(z.object({ t: z.number(), cost: z.number() }))`
        SELECT ((created_at AT TIME ZONE 'UTC')::date - (${from}::timestamptz AT TIME ZONE 'UTC')::date) AS t, sum(cost_usd)::float8 AS cost
        FROM usage_events WHERE ${where} GROUP BY 1 ORDER BY 1`);
      if (days.length < 7) {
        t.deepEqual(projection, { status: 'insufficient_data', minDaysRequired: 7, daysAvailable: days.length });
      } else {
        const actual = await db.oneFirst(
          sql.type(z.object({ s: z.number() }))`SELECT sum(cost_usd)::float8 AS s FROM usage_events WHERE ${where}`,
        );
        const future = remainingDaysOfMonth(new Date(from), new Date(to));
        const fit = future.length
          ? projectFutureTotal({ points: days.map((d) => ({ t: d.t, cost: d.cost })), futureTs: future })
          : { predictedSum: 0, halfWidth: 0 };
        t.is(projection.status, 'ok');
        t.true(close(projection.actual, actual));
        t.true(close(projection.projected, actual + fit.predictedSum));
        t.true(close(projection.upperBound, actual + fit.predictedSum + fit.halfWidth));
      }

      // summary
      const summary = (await ask('summary', {}).expect(200)).body;
      t.is(
        summary.executionsCount,
        await db.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`SELECT count(*) AS n FROM usage_events WHERE ${where}`),
      );
    }),
    { numRuns: 25 },
  );
});
