/**
 * Usage analytics benchmark (issue 7). Builds (or reuses) the database `bench_analytics` on the
 * local PostgreSQL with BENCH_ROWS rows (default 10,000,000) over 100 organizations, the largest
 * holding a fifth of them (2,000,000) over 365 days, then measures each endpoint for the largest
 * organization (30 % of its end users' actions carry one of 5,000 end users, as a web channel's
 * turns do): cold p50/p95 (cache flushed before every call) for 7, 30, 90 and 365-day windows,
 * the cached p50, the ratio against a naive query over the raw rows, and the import throughput.
 *
 *   npm run bench:analytics                 # full size
 *   BENCH_ROWS=1000000 npm run bench:analytics   # scaled down (same code path)
 *   BENCH_ENDPOINTS=end-users npm run bench:analytics   # only these routes (comma-separated), no import
 *   BENCH_REPLICA_URL=postgres://postgres@127.0.0.1:5433/postgres npm run bench:analytics
 *     # also the cold latencies with DATABASE_REPLICA_URL set: reads on that streaming standby of the bench's
 *     # server (.ci/run starts one on 5433), in the same database name
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importUsageFile } from '../../app/analytics/ingest/usage-import.ts';
import { Agent, createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uuidv7 } from 'uuidv7';
import { createApp } from '../../app/app.ts';
import { analyticsCache } from '../../app/analytics/cache.ts';
import { generateUsage } from '../../seeds/usage-generator.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { migrate } from '../../sql/migrate.ts';
import { insertUsageEvents, type UsageEventInput } from '../../sql/usage-events.ts';
import { ROLES } from '../../seeds/demo-fixtures.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { storageLine, usageStorage } from './storage.ts';
import { END_USER_SHARE, endUserIds, insertEndUsers, insertEndUserTurns } from './end-users.ts';
import { createUsagePartition } from '../../sql/usage-partitions.ts';
import { utcMonthStart } from '../../app/analytics/partitions.ts';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_DB ?? 'bench_analytics';
const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const ORGS = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CACHED_RUNS = 200;
const BUILD_LANES = Number(process.env.BENCH_BUILD_LANES ?? 2);
const END = new Date(Date.UTC(2026, 10, 1));
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The endpoints measured (comma-separated); all by default. The import is measured only on a run of all of them. */
const ENDPOINTS = process.env.BENCH_ENDPOINTS?.split(',');

const dbUrl = () => Object.assign(new URL(ADMIN_URL), { pathname: `/${DB_NAME}` }).toString();
const orgId = (i: number) => `01900000-0000-7000-8000-${(0xb000 + i).toString(16).padStart(12, '0')}`;
async function ensureDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE "${DB_NAME.replace(/[^a-z0-9_]/g, '')}"`);
  await admin.end();
  await migrate(dbUrl());
}

/** A streaming standby of ADMIN_URL's server; its copy of DB_NAME is read by a second app (DATABASE_REPLICA_URL). */
const REPLICA_URL = process.env.BENCH_REPLICA_URL;
const replicaDbUrl = (url: string) => Object.assign(new URL(url), { pathname: `/${DB_NAME}` }).toString();

/** Waits until the standby has replayed everything the primary has written so far. */
async function caughtUp(db: DatabasePool, replica: DatabasePool): Promise<void> {
  const lsn = await db.oneFirst(sql.unsafe`SELECT pg_current_wal_lsn()::text AS lsn`);
  for (;;) {
    const behind = await replica.oneFirst(
      sql.unsafe`SELECT pg_wal_lsn_diff(${String(lsn)}::pg_lsn, pg_last_wal_replay_lsn()) > 0 AS behind`,
    );
    if (behind === false) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 500_000);

/**
 * import-usage throughput: writes IMPORT_ROWS generated events of a fresh organization to an
 * NDJSON file (not timed), imports it with the command's code path (timed), then deletes the
 * organization again so the dataset stays as built.
 */
async function measureImport(db: DatabasePool): Promise<number> {
  const organizationId = orgId(ORGS);
  await db.query(sql.unsafe`DELETE FROM organizations WHERE id = ${organizationId}`);
  await db.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${organizationId}, 'Bench import', 'AGENCY')`);
  const dir = await mkdtemp(join(tmpdir(), 'bench-import-'));
  const path = join(dir, 'usage.ndjson');
  const out = createWriteStream(path);
  for (const batch of generateUsage({ organizationId, rows: IMPORT_ROWS, days: 30, end: END, seed: 4242, batchSize: 10_000 })) {
    const text = batch.map(({ id: _id, ...event }) => JSON.stringify(event)).join('\n');
    if (!out.write(`${text}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  const started = performance.now();
  const { rows } = await importUsageFile(db, path);
  const rate = rows / ((performance.now() - started) / 1000);
  log(`import-usage: ${rows} rows, ${Math.round(rate)} rows/s`);
  await db.query(sql.unsafe`DELETE FROM organizations WHERE id = ${organizationId}`);
  await rm(dir, { recursive: true, force: true });
  return rate;
}

/** Rows of organization i: the largest holds a fifth of TOTAL_ROWS over 365 days, the others share the rest. */
function organizationRows(i: number): number {
  const largest = Math.round(TOTAL_ROWS / 5);
  const rest = Math.floor((TOTAL_ROWS - largest) / (ORGS - 1));
  return i === 0 ? largest : i === ORGS - 1 ? TOTAL_ROWS - largest - rest * (ORGS - 2) : rest;
}

/** Every organization's generated rows merged into one stream in time order (a binary heap over the ORGS streams), in batches. */
function* timeOrderedBatches(size: number): Generator<UsageEventInput[]> {
  type Head = { row: UsageEventInput; batch: UsageEventInput[]; index: number; rest: Generator<UsageEventInput[]> };
  const heap: Head[] = [];
  const before = (a: Head, b: Head) => a.row.createdAt < b.row.createdAt;
  const push = (head: Head) => {
    heap.push(head);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const pop = (): Head => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && before(heap[right]!, heap[least]!)) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  };
  const advance = (head: Head) => {
    head.index += 1;
    if (head.index >= head.batch.length) {
      const next = head.rest.next();
      if (next.done) return;
      head.batch = next.value;
      head.index = 0;
    }
    head.row = head.batch[head.index]!;
    push(head);
  };
  for (let i = 0; i < ORGS; i++) {
    const rest = generateUsage({
      organizationId: orgId(i),
      rows: organizationRows(i),
      days: i === 0 ? 365 : 30 + (i % 300),
      end: END,
      seed: i + 1,
      endUserIds: endUserIds(i),
      endUserShare: END_USER_SHARE,
      batchSize: 1_000,
    });
    const first = rest.next();
    if (!first.done) push({ row: first.value[0]!, batch: first.value, index: 0, rest });
  }
  let batch: UsageEventInput[] = [];
  while (heap.length > 0) {
    const head = pop();
    batch.push(head.row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
    advance(head);
  }
  if (batch.length > 0) yield batch;
}

async function main() {
  await ensureDatabase();
  const db = await createDatabasePool(dbUrl(), { maximumPoolSize: 4 });
  // The statements that grow with the dataset (the count, VACUUM, the naive raw-row queries) run
  // without the service's 60 s statement timeout: at 100M rows they take longer.
  const long = await createDatabasePool(dbUrl(), { maximumPoolSize: 1, statementTimeoutMs: 'off' });
  const count = Number(await long.oneFirst(sql.unsafe`SELECT count(*) AS n FROM usage_events`));
  let buildRate: number | undefined;
  if (count < TOTAL_ROWS) {
    if (count > 0) throw new Error(`${DB_NAME} holds ${count} rows, fewer than ${TOTAL_ROWS}: drop it and run again`);
    await db.query(sql.unsafe`
      INSERT INTO roles (id, name) VALUES (${ROLES.agencyOwner.id}, ${ROLES.agencyOwner.name}) ON CONFLICT DO NOTHING`);
    await db.query(sql.unsafe`
      INSERT INTO role_permissions (role_id, subject, action) VALUES (${ROLES.agencyOwner.id}, 'ai.agent', 'read') ON CONFLICT DO NOTHING`);
    for (let i = 0; i < ORGS; i++) {
      await db.query(
        sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${orgId(i)}, ${`Bench ${i}`}, 'AGENCY') ON CONFLICT DO NOTHING`,
      );
      await insertEndUsers(db, i, orgId(i));
    }
    // The monthly partitions the service would have created ahead of the year's usage.
    for (let month = utcMonthStart(new Date(END.getTime() - 366 * 86_400_000)); month <= END; month = utcMonthStart(month, 1)) {
      await createUsagePartition(db, month);
    }
    const started = performance.now();
    let done = 0;
    // Rows go in in time order across organizations, as a live service writes them: the BRIN
    // index on (organization_id, created_at) prunes by time. BUILD_LANES statements run at once,
    // each taking the next batch of the one time-ordered stream, so the lanes stay minutes apart.
    // (Organization after organization in parallel lanes interleaves heap pages of far-apart
    // times; a raw-edge read then scanned a whole monthly partition: docs/analytics.md.)
    const batches = timeOrderedBatches(10_000);
    let logged = 0;
    const lane = async () => {
      for (let next = batches.next(); !next.done; next = batches.next()) {
        await insertUsageEvents(db, next.value);
        done += next.value.length;
        if (done - logged >= 2_000_000) {
          logged = done;
          log(`generated ${done} rows, ${Math.round(done / ((performance.now() - started) / 1000))} rows/s`);
        }
      }
    };
    await Promise.all(Array.from({ length: BUILD_LANES }, lane));
    buildRate = done / ((performance.now() - started) / 1000);
  }
  log(await insertEndUserTurns(long));
  // Visibility map and statistics for index-only scans (also after migrations on a reused dataset).
  for (const table of [
    'chat_turns',
    'usage_events',
    'usage_models',
    'usage_rollup_15m_source',
    'usage_rollup_15m_action',
    'usage_rollup_15m_model',
    'usage_rollup_day',
  ]) {
    await long.query(sql.unsafe`VACUUM ANALYZE ${sql.identifier([table])}`);
  }
  const storage = storageLine(await usageStorage(db), count || TOTAL_ROWS);
  log(storage);
  if (process.env.BENCH_STORAGE_ONLY) {
    process.stdout.write(`${storage}\n`);
    await Promise.all([db.end(), long.end()]);
    return;
  }
  if (process.env.BENCH_IMPORT_ONLY) {
    await measureImport(db);
    await Promise.all([db.end(), long.end()]);
    return;
  }
  // One user per cell: each cell sends ~250 calls to one route, under the 600-a-minute limit
  // per user and route (docs/analytics.md, "Cache and limits"), which stays in the measured chain.
  const newToken = async () => {
    const userId = uuidv7();
    await db.query(
      sql.unsafe`INSERT INTO users (id, organization_id, type, email) VALUES (${userId}, ${orgId(0)}, 'user', ${`bench-${userId}@bench.test`})`,
    );
    await db.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${userId}, ${ROLES.agencyOwner.id})`);
    return accessToken(userId, orgId(0));
  };
  const replica = REPLICA_URL === undefined ? undefined : await createDatabasePool(replicaDbUrl(REPLICA_URL), { maximumPoolSize: 4 });
  if (replica !== undefined) await caughtUp(db, replica);
  // One listening server per app and keep-alive connections, as a deployed instance would see.
  const serve = async (options: { replica?: DatabasePool; replicaMaxLagMs?: number }) => {
    const app = createApp({
      db,
      replica: options.replica,
      config: testConfig({ replicaMaxLagMs: options.replicaMaxLagMs ?? 5_000 }),
      logger: pino({ level: 'silent' }),
    });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { app, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cache: analyticsCache(app.deps) };
  };
  const primaryApp = await serve({});
  const { base, cache } = primaryApp;
  const replicaApp = replica === undefined ? undefined : await serve({ replica });
  // One keep-alive connection per app reused by every call, as a client of a deployed instance would.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const replicaAgent = new Agent({ keepAlive: true, maxSockets: 1 });

  const time = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1) + 0.5))]!;
  };
  const naive: Record<string, (from: string, to: string) => ReturnType<typeof sql.unsafe>> = {
    'time-series': (from, to) =>
      sql.unsafe`SELECT date_trunc('day', created_at AT TIME ZONE 'UTC'), sum(input_tokens + output_tokens + cache_read_tokens), sum(cost_usd) FROM usage_events WHERE organization_id = ${orgId(0)} AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`,
    projection: (from, to) =>
      sql.unsafe`SELECT (created_at AT TIME ZONE 'UTC')::date, sum(cost_usd) FROM usage_events WHERE organization_id = ${orgId(0)} AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`,
    'model-efficiency': (from, to) =>
      sql.unsafe`SELECT model_id, sum(cost_usd), avg(latency_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) FROM usage_events WHERE organization_id = ${orgId(0)} AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`,
    heatmap: (from, to) =>
      sql.unsafe`SELECT extract(dow FROM created_at AT TIME ZONE 'Europe/Madrid'), extract(hour FROM created_at AT TIME ZONE 'Europe/Madrid'), sum(cost_usd) FROM usage_events WHERE organization_id = ${orgId(0)} AND created_at >= ${from} AND created_at < ${to} GROUP BY 1, 2`,
    'cache-savings': (from, to) =>
      sql.unsafe`SELECT model_id, sum(cache_read_tokens), sum(input_tokens) FROM usage_events WHERE organization_id = ${orgId(0)} AND source = 'system' AND created_at >= ${from} AND created_at < ${to} GROUP BY 1`,
    'end-users': (from, to) =>
      sql.unsafe`SELECT end_user_id, sum(input_tokens + output_tokens + cache_read_tokens), sum(cost_usd) AS cost FROM usage_events WHERE organization_id = ${orgId(0)} AND end_user_id IS NOT NULL AND created_at >= ${from} AND created_at < ${to} GROUP BY 1 ORDER BY cost DESC, 1 LIMIT 20`,
  };
  const extra: Record<string, Record<string, string>> = {
    heatmap: { timezone: 'Europe/Madrid' },
    'time-series': { timezone: 'Europe/Madrid' },
  };

  const lines = [
    `| endpoint | window | cold p50 ms | cold p95 ms | cached p50 ms | naive raw p50 ms | naive / cold |${replicaApp ? ' replica cold p50 ms | replica cold p95 ms |' : ''}`,
    `|---|---|---|---|---|---|---|${replicaApp ? '---|---|' : ''}`,
  ];
  for (const endpoint of Object.keys(naive).filter((name) => ENDPOINTS === undefined || ENDPOINTS.includes(name))) {
    for (const days of [7, 30, 90, 365]) {
      // Windows end at an odd minute so both raw edges are exercised.
      const to = new Date(END.getTime() - 7 * 60_000 - 13_000).toISOString();
      const from = new Date(Date.parse(to) - days * 86_400_000).toISOString();
      const path = `/api/ai/org-usage/${endpoint}?${new URLSearchParams({ from, to, ...extra[endpoint] })}`;
      const token = await newToken();
      const call = (on = base, through = agent) =>
        new Promise<unknown>((resolve, reject) => {
          const request = httpGet(`${on}${path}`, { agent: through, headers: { authorization: `Bearer ${token}` } }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (response.statusCode !== 200) reject(new Error(`${endpoint}: ${response.statusCode} ${text}`));
              else resolve(JSON.parse(text));
            });
            response.on('error', reject);
          });
          request.on('error', reject);
        });
      const cold: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        cache.clear();
        cold.push(await time(call));
      }
      // Cached: warm up the stored entry and the code path (JIT), then many cheap calls.
      for (let i = 0; i < 20; i++) await call();
      const warm: number[] = [];
      for (let i = 0; i < CACHED_RUNS; i++) warm.push(await time(call));
      const raw: number[] = [];
      for (let i = 0; i < Math.min(5, RUNS); i++) raw.push(await time(() => long.any(naive[endpoint]!(from, to))));
      const onReplica: number[] = [];
      for (let i = 0; replicaApp !== undefined && i < RUNS; i++) {
        replicaApp.cache.clear();
        onReplica.push(await time(() => call(replicaApp.base, replicaAgent)));
      }
      if (replicaApp !== undefined && replicaApp.app.deps.replica?.onReplica !== true)
        throw new Error('the replica app read from the primary (replica down or lagging?): its column would be wrong');
      const row = [endpoint, `${days} d`, pct(cold, 0.5), pct(cold, 0.95), pct(warm, 0.5), pct(raw, 0.5)];
      const replicaCells = replicaApp ? ` ${pct(onReplica, 0.5).toFixed(1)} | ${pct(onReplica, 0.95).toFixed(1)} |` : '';
      lines.push(
        `| ${row.map((v) => (typeof v === 'number' ? v.toFixed(1) : v)).join(' | ')} | ${(pct(raw, 0.5) / pct(cold, 0.5)).toFixed(1)}x |${replicaCells}`,
      );
      log(lines.at(-1)!);
    }
  }
  agent.destroy();
  replicaAgent.destroy();
  primaryApp.server.close();
  replicaApp?.server.close();
  await replica?.end();
  // Last, so the reads above run without the import's dirty buffers and checkpoint.
  const importRate = ENDPOINTS === undefined ? await measureImport(db) : undefined;
  process.stdout.write(`${lines.join('\n')}\n${storage}\n`);
  if (importRate !== undefined)
    process.stdout.write(
      `import-usage: ${Math.round(importRate)} rows/s (${IMPORT_ROWS} rows from an NDJSON file into the ${count || TOTAL_ROWS}-row table: parse, validate, insert, rollup triggers, one transaction)\n`,
    );
  if (buildRate !== undefined)
    process.stdout.write(`dataset build: ${Math.round(buildRate)} rows/s (generation + inserts + rollup triggers)\n`);
  await Promise.all([db.end(), long.end()]);
}

await main();
