import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest from 'ava';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { importUsageFile } from '../../app/analytics/ingest/usage-import.ts';
import { tryLockUsageImport } from '../../sql/usage-import.ts';
import { parsePricingFile } from '../../app/analytics/ingest/pricing-file.ts';
import { seedDemoUsage, DEMO_UNPRICED_MODEL } from '../../seeds/demo-usage.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { createTenant, getUsage } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const file = async (name: string, text: string) => {
  const dir = await mkdtemp(join(tmpdir(), 'usage-import-'));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
};
const event = (organizationId: string, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    organizationId,
    modelId: 'imp/model',
    actionType: 'user_interaction',
    source: 'system',
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    costUsd: 0.001,
    createdAt: '2026-05-01T10:00:00Z',
    ...overrides,
  });
const count = (t: { context: { t: { db: { pool: DatabasePool } } } }, organizationId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
    SELECT (SELECT count(*) FROM usage_events WHERE organization_id = ${organizationId})
         + (SELECT coalesce(sum(events), 0) FROM usage_rollup_day WHERE organization_id = ${organizationId}) AS n`);

test('import-usage inserts every line and the analytics see them', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'import-ok');
  const lines = Array.from({ length: 12_000 }, (_, i) =>
    event(tenant.organizationId, { latencyMs: i % 7 === 0 ? null : i, costUsd: '0.5' }),
  );
  const path = await file('ok.ndjson', `${lines.join('\n')}\n\n`);
  t.deepEqual(await importUsageFile(t.context.t.db.pool, path), { rows: 12_000, organizationIds: [tenant.organizationId] });
  // Raw rows plus their rollup counts: both hold the 12,000 rows.
  t.is(await count(t, tenant.organizationId), 24_000);
  const { body } = await getUsage(t.context.t, tenant.ownerToken, 'summary', {
    from: '2026-05-01T00:00:00Z',
    to: '2026-05-02T00:00:00Z',
  }).expect(200);
  t.is(body.totalCostUsd, 6000);
});

test('a bad line aborts the whole import and the error names the line and the field', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'import-bad');
  const lines = Array.from({ length: 7_000 }, () => event(tenant.organizationId));
  lines[6_500] = event(tenant.organizationId, { actionType: 'chatting' });
  const path = await file('bad.ndjson', lines.join('\n'));
  const error = await t.throwsAsync(importUsageFile(t.context.t.db.pool, path));
  t.regex(error!.message, /^line 6501, field actionType: must be one of/);
  t.is(await count(t, tenant.organizationId), 0);
});

for (const [label, line, message] of [
  ['invalid JSON', '{"organizationId":', /^line 2: not valid JSON/],
  ['a negative token count', 'NEG', /^line 2, field inputTokens: must be a non-negative integer/],
  ['a missing createdAt', 'NODATE', /^line 2, field createdAt: Required/],
  ['an unknown organization', 'NOORG', /^line 2, field organizationId: no such organization/],
] as const) {
  test(`import-usage rejects ${label}, naming the line`, async (t) => {
    const tenant = await createTenant(t.context.t.db.pool, 'import-case');
    const bad =
      line === 'NEG'
        ? event(tenant.organizationId, { inputTokens: -1 })
        : line === 'NODATE'
          ? event(tenant.organizationId, { createdAt: undefined })
          : line === 'NOORG'
            ? event('01900000-0000-7000-8000-00000000dead')
            : line;
    const path = await file('case.ndjson', `${event(tenant.organizationId)}\n${bad}\n`);
    const error = await t.throwsAsync(importUsageFile(t.context.t.db.pool, path));
    t.regex(error!.message, message);
    t.is(await count(t, tenant.organizationId), 0);
  });
}

test('the pricing file parser names the entry and field it refuses', (t) => {
  t.deepEqual(parsePricingFile('[{"modelId":"m","inputUsdPerMTok":3,"outputUsdPerMTok":"15","cacheReadUsdPerMTok":0.3}]'), [
    { modelId: 'm', inputUsdPerMTok: '3.0000000000', outputUsdPerMTok: '15', cacheReadUsdPerMTok: '0.3000000000' },
  ]);
  t.throws(() => parsePricingFile('[{"modelId":"m","inputUsdPerMTok":-1,"outputUsdPerMTok":1,"cacheReadUsdPerMTok":0}]'), {
    message: /entry 0, field inputUsdPerMTok/,
  });
  t.throws(() => parsePricingFile('{}'), { message: /must be a JSON array/ });
});

test('the demo usage seed adds 120 days once and leaves one used model unpriced', async (t) => {
  const db = t.context.t.db.pool;
  const demo = ORGANIZATIONS.demoAgency;
  await db.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${demo.id}, ${demo.name}, 'AGENCY') ON CONFLICT DO NOTHING`);
  const now = new Date('2026-11-22T06:00:00.000Z');
  t.true(await seedDemoUsage(db, now));
  t.false(await seedDemoUsage(db, now));
  const span = await db.one(sql.type(z.object({ n: z.coerce.number(), first: z.string(), last: z.string(), unpriced: z.boolean() }))`
    SELECT count(*) AS n, min(created_at)::text AS first, max(created_at)::text AS last,
           EXISTS (SELECT 1 FROM usage_events u WHERE u.organization_id = ${demo.id} AND u.model_id = ${DEMO_UNPRICED_MODEL}
                   AND NOT EXISTS (SELECT 1 FROM model_pricing p WHERE p.model_id = u.model_id)) AS unpriced
    FROM usage_events WHERE organization_id = ${demo.id}`);
  t.is(span.n, 3_000);
  t.true(new Date(span.first).getTime() >= now.getTime() - 120 * 86_400_000);
  t.true(new Date(span.last).getTime() < now.getTime());
  t.true(new Date(span.last).getTime() > now.getTime() - 86_400_000);
  t.true(span.unpriced);
});

test.serial('imports run one at a time: one started while another holds the lock waits, says so, then imports', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'import-serial');
  const path = await file('serial.ndjson', `${event(tenant.organizationId)}\n`);
  // Another import's transaction holds the lock until released.
  let locked!: (held: boolean) => void;
  const holding = new Promise<boolean>((resolve) => (locked = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const other = t.context.t.db.pool.transaction(async (tx) => {
    locked(await tryLockUsageImport(tx));
    await released;
  });
  t.true(await holding);
  let waiting!: () => void;
  const waited = new Promise<void>((resolve) => (waiting = resolve));
  const imported = importUsageFile(t.context.t.db.pool, path, undefined, waiting);
  await waited;
  t.is(await count(t, tenant.organizationId), 0, 'nothing imported while the other import runs');
  release();
  await other;
  t.is((await imported).rows, 1);
  t.is(await count(t, tenant.organizationId), 2);
});
