// Analytics reads from a real streaming replica (a private primary and standby started here, see
// helpers/pg-standby.ts): the replica answers while it streams within REPLICA_MAX_LAG_MS; a lagging or stopped
// replica sends reads to the primary, logged once per switch, and no request fails.
import anyTest, { type TestFn } from 'ava';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import request from 'supertest';
import { createApp } from '../../app/app.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { migrate } from '../../sql/migrate.ts';
import { CapturedLogs, testConfig } from '../helpers/app.ts';
import { startStandbyPair, type StandbyPair } from '../helpers/pg-standby.ts';
import { createTenant, insertUsage, type Tenant } from './support.ts';

type Context = { pair: StandbyPair; primary: DatabasePool; replica: DatabasePool; tenant: Tenant };
const test = anyTest as TestFn<Context>;

test.before(async (t) => {
  t.timeout(120_000);
  const pair = await startStandbyPair();
  await migrate(pair.primaryUrl);
  const primary = await createDatabasePool(pair.primaryUrl);
  const replica = await createDatabasePool(pair.replicaUrl, { connectionTimeoutMs: 1_000 });
  const tenant = await createTenant(primary, 'replica reads');
  t.context = { pair, primary, replica, tenant };
});
test.after.always(async (t) => {
  await t.context.replica?.end();
  await t.context.primary?.end();
  await t.context.pair?.stop();
});

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Waiting on the standby, an external peer: replication is polled, bounded by timeoutMs.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const rowsOnReplica = (replica: DatabasePool, organizationId: string) =>
  replica.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM usage_events WHERE organization_id = ${organizationId}`,
  );

let window = 0;
/** The summary of January 2026, under a `from` no earlier request used (each answer is computed, never cached). */
async function executions(app: ReturnType<typeof createApp>, tenant: Tenant): Promise<number> {
  const from = new Date(Date.UTC(2026, 0, 1) + window++ * 1_000).toISOString();
  const response = await request(app.callback())
    .get('/api/ai/org-usage/summary')
    .query({ from, to: '2026-02-01T00:00:00.000Z' })
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .expect(200);
  return (response.body as { executionsCount: number }).executionsCount;
}

const appWith = (t: { context: Context }, maxLagMs: number, logs: CapturedLogs) =>
  createApp({
    db: t.context.primary,
    replica: t.context.replica,
    config: testConfig({ replicaMaxLagMs: maxLagMs }),
    logger: pino({ level: 'info' }, logs.stream),
    rateLimits: false,
  });

const replicaLines = (logs: CapturedLogs) =>
  logs.entries.filter((e) => /read replica/.test(String(e['msg']))).map((e) => `${String(e['level'])} ${String(e['msg'])}`);

test.serial(
  'analytics answer from the replica while it is within the lag bound, from the primary beyond it, and the replica again once it catches up',
  async (t) => {
    t.timeout(60_000);
    const { primary, replica, tenant } = t.context;
    await insertUsage(primary, tenant.organizationId, [{ at: '2026-01-10T10:00:00Z' }, { at: '2026-01-10T11:00:00Z' }]);
    await until(async () => (await rowsOnReplica(replica, tenant.organizationId)) === 2, 'the replica to replay the rows');
    const lenientLogs = new CapturedLogs();
    const strictLogs = new CapturedLogs();
    const lenient = appWith(t, 600_000, lenientLogs);
    const strict = appWith(t, 500, strictLogs);
    t.is(await executions(lenient, tenant), 2);
    t.is(await executions(strict, tenant), 2);

    // Replay stops on the standby; a third row commits on the primary only.
    await replica.query(sql.unsafe`SELECT pg_wal_replay_pause()`);
    try {
      await insertUsage(primary, tenant.organizationId, [{ at: '2026-01-10T12:00:00Z' }]);
      // The lenient app still reads the replica (stale by one row: proof of where it reads); the strict one reads
      // the primary as soon as the replica's lag passes 500 ms.
      t.is(await executions(lenient, tenant), 2);
      await until(async () => (await executions(strict, tenant)) === 3, 'the strict app to read the primary');
      t.is(await executions(strict, tenant), 3);
    } finally {
      await replica.query(sql.unsafe`SELECT pg_wal_replay_resume()`);
    }
    await until(async () => {
      t.is(await executions(strict, tenant), 3);
      return replicaLines(strictLogs).some((line) => line.startsWith('30 '));
    }, 'the strict app back on the replica');
    t.is(await executions(lenient, tenant), 3);
    t.deepEqual(replicaLines(lenientLogs), []);
    t.deepEqual(replicaLines(strictLogs), [
      '40 read replica not used: replica lags too far behind; reading from the primary',
      '30 read replica back: reads go to it again',
    ]);
  },
);

test.serial('a replica stopped mid-run sends every read to the primary without a failed request, logged once', async (t) => {
  t.timeout(60_000);
  const { pair, primary, tenant } = t.context;
  const logs = new CapturedLogs();
  const app = appWith(t, 5_000, logs);
  const before = await executions(app, tenant);
  let running = true;
  const answers: number[] = [];
  const load = (async () => {
    while (running) answers.push(await executions(app, tenant));
  })();
  await until(async () => answers.length >= 5, 'reads on the replica');
  await pair.stopReplica();
  await insertUsage(primary, tenant.organizationId, [{ at: '2026-01-11T10:00:00Z' }]);
  await until(async () => answers.at(-1) === before + 1, 'reads on the primary');
  const afterStop = answers.length;
  await until(async () => answers.length >= afterStop + 10, 'more reads on the primary');
  running = false;
  await load;
  t.true(answers.every((n) => n === before || n === before + 1));
  t.deepEqual(replicaLines(logs), ['40 read replica not used: replica unreachable; reading from the primary']);
});
