import test from 'ava';
import { pino } from 'pino';
import { sql } from 'slonik';
import request from 'supertest';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { maintainUsagePartitions, retentionCutoff } from '../../app/analytics/partitions.ts';
import { createApp } from '../../app/app.ts';
import { loadConfig } from '../../app/config.ts';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { createUsagePartition, listUsagePartitionMonths, tryUsagePartitionLock } from '../../sql/usage-partitions.ts';
import { testConfig } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { createTenant, insertUsage, type Tenant, type UsageRow } from './support.ts';

// Partitions are schema-wide: each test has a database of its own, and dates in 2031 that no
// other migration or test creates partitions for.
const NOW = new Date('2031-05-20T10:00:00.000Z');

const deps = (db: TestDatabase, retention?: number) => ({
  db: db.pool,
  clock: () => NOW,
  config: testConfig({ usageRetentionMonths: retention }),
  logger: pino({ level: 'silent' }),
});

const partitionOf = (db: TestDatabase, organizationId: string) =>
  db.pool.anyFirst(sql.type(z.object({ part: z.string() }))`
    SELECT tableoid::regclass::text AS part FROM usage_events WHERE organization_id = ${organizationId} ORDER BY created_at`);

/** Answers of a fresh app (so no cached answer is reused) for the tenant. */
async function answers(db: TestDatabase, tenant: Tenant, endpoint: string, query: Record<string, string>) {
  const app = createApp({ db: db.pool, config: testConfig(), logger: pino({ level: 'silent' }), rateLimits: false });
  const response = await request(app.callback())
    .get(`/api/ai/org-usage/${endpoint}`)
    .query(query)
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .expect(200);
  return response.body as unknown;
}

test('maintenance creates the partitions of this UTC month and the next three once, moving waiting rows out of the default partition', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const tenant = await createTenant(db.pool, 'partitions');
  await insertUsage(db.pool, tenant.organizationId, [{ at: '2031-06-10T08:00:00.000Z', latencyMs: 120 }]);
  t.deepEqual(await partitionOf(db, tenant.organizationId), ['usage_events_default']);
  const window = { from: '2031-06-01T00:00:00.000Z', to: '2031-07-01T00:00:00.000Z' };
  const before = await answers(db, tenant, 'model-efficiency', window);

  t.deepEqual(await maintainUsagePartitions(deps(db)), { created: 4, dropped: 0 });
  t.deepEqual(await maintainUsagePartitions(deps(db)), { created: 0, dropped: 0 });
  const months = await listUsagePartitionMonths(db.pool);
  t.deepEqual(
    months.filter((month) => month >= '2031'),
    ['2031-05', '2031-06', '2031-07', '2031-08'],
  );
  t.deepEqual(await partitionOf(db, tenant.organizationId), ['usage_events_203106']);
  // Moving rows between partitions leaves the rollups (and so every answer) as they were.
  t.deepEqual(await answers(db, tenant, 'model-efficiency', window), before);
});

test('only one maintenance runs at a time across processes: a run that finds the lock taken skips', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  await db.pool.transaction(async (tx) => {
    t.true(await tryUsagePartitionLock(tx));
    t.is(await maintainUsagePartitions(deps(db)), undefined);
  });
  t.deepEqual(await maintainUsagePartitions(deps(db)), { created: 4, dropped: 0 });
});

test('USAGE_RETENTION_MONTHS keeps the current UTC month and that many before it; absent, nothing is dropped', (t) => {
  t.is(retentionCutoff(NOW, undefined), undefined);
  t.deepEqual(retentionCutoff(NOW, 2), new Date('2031-03-01T00:00:00.000Z'));
  t.deepEqual(retentionCutoff(new Date('2031-01-31T23:59:59.999Z'), 1), new Date('2030-12-01T00:00:00.000Z'));
  t.is(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEY: testCredentialsKey() }).usageRetentionMonths, undefined);
  t.is(
    loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEY: testCredentialsKey(), USAGE_RETENTION_MONTHS: '13' })
      .usageRetentionMonths,
    13,
  );
  t.throws(() => loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), USAGE_RETENTION_MONTHS: '0' }), {
    message: /^Invalid environment variable USAGE_RETENTION_MONTHS/,
  });
});

const testCredentialsKey = () => 't1:dGVzdC1jcmVkZW50aWFscy1rZXktMzItYnl0ZXMhISE=';

test('retention drops whole raw months: rollup answers of windows on slot and day edges and the p95 stay, by-agent and edges inside dropped months lose those rows', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  for (const month of ['2031-01-01', '2031-02-01', '2031-03-01', '2031-04-01']) await createUsagePartition(db.pool, new Date(month));
  const tenant = await createTenant(db.pool, 'retention');
  const agentId = uuidv7();
  await db.pool.query(
    sql.unsafe`INSERT INTO agents (id, organization_id, name, description) VALUES (${agentId}, ${tenant.organizationId}, 'kept', '')`,
  );
  const rows: UsageRow[] = [
    { at: '2031-01-15T12:00:00.000Z', latencyMs: 900, agentId },
    { at: '2031-01-20T09:00:00.000Z', latencyMs: 100, modelId: 'ret/b', agentId },
    { at: '2031-02-03T09:00:00.000Z', latencyMs: 300, source: 'byok' },
    { at: '2031-03-04T09:00:00.000Z', latencyMs: 200, agentId },
    { at: '2031-05-02T09:00:00.000Z', latencyMs: 50, actionType: 'guardrail_check' },
  ];
  await insertUsage(db.pool, tenant.organizationId, rows);
  await insertUsageEvents(db.pool, [
    { ...ingested(tenant.organizationId), ingestKey: 'event:january', createdAt: '2031-01-25T09:00:00.000Z' },
  ]);

  const aligned = { from: '2031-01-01T00:00:00.000Z', to: '2031-06-01T00:00:00.000Z' };
  const unaligned = { from: '2031-01-15T10:07:00.000Z', to: '2031-06-01T00:00:00.000Z' };
  const queries: [string, Record<string, string>][] = [
    ['summary', aligned],
    ['model-efficiency', aligned],
    ['time-series', { ...aligned, granularity: 'day', groupBy: 'model' }],
    ['heatmap', { ...aligned, timezone: 'Asia/Kathmandu' }],
    ['daily', { ...aligned, timezone: 'Europe/Madrid' }],
    ['cache-savings', aligned],
    ['projection', aligned],
    ['time-series', { from: '2031-01-15T11:45:00.000Z', to: '2031-06-01T00:00:00.000Z', granularity: 'week' }],
  ];
  const before = await Promise.all(queries.map(([endpoint, query]) => answers(db, tenant, endpoint, query)));
  const summaryBefore = (await answers(db, tenant, 'summary', unaligned)) as { executionsCount: number };
  const byAgentBefore = (await answers(db, tenant, 'by-agent', aligned)) as { agentId: string | null; executionsCount: number }[];

  // 2031-01 and 2031-02, and the months the template database was migrated in (all before 2031).
  t.like(await maintainUsagePartitions(deps(db, 2)), { created: 4 });
  t.deepEqual(await listUsagePartitionMonths(db.pool), ['2031-03', '2031-04', '2031-05', '2031-06', '2031-07', '2031-08']);
  t.deepEqual(await partitionOf(db, tenant.organizationId), ['usage_events_203103', 'usage_events_203105']);

  const after = await Promise.all(queries.map(([endpoint, query]) => answers(db, tenant, endpoint, query)));
  t.deepEqual(after, before);
  // The partial day 2031-01-15 10:07-24:00 was read from raw rows, now dropped.
  t.is(
    ((await answers(db, tenant, 'summary', unaligned)) as { executionsCount: number }).executionsCount,
    summaryBefore.executionsCount - 1,
  );
  // by-agent reads raw rows only: January's two rows of the agent are gone.
  const byAgentAfter = (await answers(db, tenant, 'by-agent', aligned)) as { agentId: string | null; executionsCount: number }[];
  const agentRow = (rows: { agentId: string | null; executionsCount: number }[]) => rows.find((row) => row.agentId === agentId);
  t.is(agentRow(byAgentBefore)?.executionsCount, 3);
  t.is(agentRow(byAgentAfter)?.executionsCount, 1);
  // An ingested event of a dropped month is still a duplicate: its key outlives its row.
  t.is(
    (
      await insertUsageEvents(db.pool, [
        { ...ingested(tenant.organizationId), ingestKey: 'event:january', createdAt: '2031-01-25T09:00:00.000Z' },
      ])
    ).inserted,
    0,
  );
});

const ingested = (organizationId: string) => ({
  id: uuidv7(),
  organizationId,
  agentId: null,
  userId: null,
  modelId: 'ret/ingested',
  actionType: 'user_interaction' as const,
  source: 'system' as const,
  inputTokens: 10,
  outputTokens: 1,
  cacheReadTokens: 0,
  costUsd: 0.5,
  latencyMs: 70,
});
