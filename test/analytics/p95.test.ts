import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { mulberry32 } from '../../seeds/usage-generator.ts';
import { withTestApp } from '../helpers/app.ts';
import { createTenant, getUsage, insertUsage, type UsageRow } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

// Enough latencies per model (about 15,000 over 12 days) that the p95 search narrows its bracket
// over several passes before reading the candidates out, with ties and a heavy tail.
test('the p95 of a model with many latencies equals percentile_cont(0.95) over the raw rows, with and without filters, whatever the window edges', async (t) => {
  const app = t.context.t;
  const db = app.db.pool;
  const tenant = await createTenant(db, 'p95');
  const random = mulberry32(95);
  const start = Date.parse('2026-03-01T00:00:00.000Z');
  const rows: UsageRow[] = [];
  for (let i = 0; i < 30_000; i++) {
    const heavy = random() < 0.1;
    rows.push({
      at: new Date(start + Math.floor(random() * 12 * 86_400_000)).toISOString(),
      modelId: random() < 0.5 ? 'p95/a' : 'p95/b',
      source: random() < 0.7 ? 'system' : 'byok',
      actionType: random() < 0.8 ? 'user_interaction' : 'guardrail_check',
      latencyMs: random() < 0.05 ? null : Math.round(heavy ? 2000 + random() ** 3 * 60_000 : 100 + random() * 2000),
    });
  }
  // A model used only after 23:50 of the last day: a window ending then reads that day whole
  // minus its rows after 23:50, which must leave no trace of this model.
  for (let i = 0; i < 40; i++) {
    rows.push({
      at: `2026-03-12T23:5${5 + (i % 5)}:00.000Z`,
      modelId: 'p95/late',
      source: 'system',
      actionType: 'user_interaction',
      latencyMs: 100 + i,
    });
  }
  for (let i = 0; i < rows.length; i += 5000) await insertUsage(db, tenant.organizationId, rows.slice(i, i + 5000));

  const windows: ({ from: string; to: string } & Record<string, string>)[] = [
    { from: '2026-03-01T00:00:00.000Z', to: '2026-03-13T00:00:00.000Z' },
    { from: '2026-03-01T07:13:00.000Z', to: '2026-03-12T19:41:30.000Z' },
    { from: '2026-03-04T12:00:00.000Z', to: '2026-03-09T00:00:00.000Z', source: 'byok' },
    { from: '2026-03-02T00:00:00.000Z', to: '2026-03-11T05:00:00.000Z', action: 'guardrail_check' },
    // Edges longer than half a day: whole days less the raw rows outside the window.
    { from: '2026-03-01T00:10:00.000Z', to: '2026-03-12T23:50:00.000Z' },
    { from: '2026-03-03T02:30:00.000Z', to: '2026-03-10T21:00:00.000Z', source: 'system', action: 'user_interaction' },
    // The widest window the API takes: no day past the year 9999 is read whole.
    { from: '1970-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.999Z', source: 'byok' },
    // Inside one day, longer than half of it.
    { from: '2026-03-05T01:00:00.000Z', to: '2026-03-05T23:00:00.000Z', source: 'byok' },
  ];
  for (const window of windows) {
    const body = (await getUsage(app, tenant.ownerToken, 'model-efficiency', window).expect(200)).body as {
      modelId: string;
      p95LatencyMs: number;
    }[];
    const source = window.source ? sql.fragment`AND source = ${window.source}` : sql.fragment``;
    const action = window.action ? sql.fragment`AND action_type = ${window.action}` : sql.fragment``;
    const reference = await db.any(sql.type(z.object({ modelId: z.string(), p95: z.number() }))`
      SELECT model_id AS "modelId", percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95
      FROM usage_events
      WHERE organization_id = ${tenant.organizationId} AND created_at >= ${window.from}::timestamptz
        AND created_at < ${window.to}::timestamptz ${source} ${action}
      GROUP BY model_id ORDER BY model_id`);
    t.deepEqual(
      body.map((m) => ({ modelId: m.modelId, p95: m.p95LatencyMs })).sort((a, b) => a.modelId.localeCompare(b.modelId)),
      reference,
      JSON.stringify(window),
    );
  }
});
