/**
 * The agency's bill (issue 57, docs/billing.md). Builds (or reuses) the database `bench_billing` on
 * the local PostgreSQL: one agency, 1,000 businesses on three plans, BENCH_ROWS usage rows (default
 * 10,000,000) spread evenly over them and over August to October 2026, a quarter on BYOK keys; then:
 *
 * - `GET /api/agency/billing?month=2026-10` over HTTP: cold p50/p95 (each call on a new app and
 *   database pool: no connection, statement or catalog cache; PostgreSQL's shared buffers as they
 *   are) and cached p50 (the same app, called again);
 * - the same month summed naively from the raw rows, for the lever the month rollup is;
 * - the service CPU the plan-limit checks add to an agent create (the plan's limits read under the
 *   organization's lock) and to an end-user message (the monthly count's upsert), per call.
 *
 *   npm run bench:billing
 *   BENCH_ROWS=2000000 npm run bench:billing   # scaled down (same code path)
 */
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { createApp } from '../../app/app.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { checkAgentLimit } from '../../app/plans/limits.ts';
import { countEndUserTurn } from '../../app/channel/quotas.ts';
import { listBillLines } from '../../sql/billing.ts';
import { migrate } from '../../sql/migrate.ts';
import { ROLES } from '../../seeds/demo-fixtures.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/app.ts';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_DB ?? 'bench_billing';
const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const BUSINESSES = 1000;
const BATCH = 100_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CACHED_RUNS = 100;
const CPU_CALLS = 2000;
const log = (line: string) => process.stderr.write(`${line}\n`);

const dbUrl = () => Object.assign(new URL(ADMIN_URL), { pathname: `/${DB_NAME}` }).toString();
const id = (kind: number, i: number) => `01900000-0000-7000-8000-${(kind * 0x1000000 + i).toString(16).padStart(12, '0')}`;
const AGENCY = id(0xa1, 0);
const OWNER = id(0xa2, 0);
const plan = (i: number) => id(0xa3, i);
const business = (i: number) => id(0xa4, i);

async function ensureDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
  if (!exists.rowCount) await admin.query(`CREATE DATABASE "${DB_NAME.replace(/[^a-z0-9_]/g, '')}"`);
  await admin.end();
  await migrate(dbUrl());
}

/** The agency, its owner, three plans and 1,000 businesses on them (one moved mid-October), once. */
async function seed(db: DatabasePool): Promise<void> {
  const role = ROLES.agencyOwner;
  await db.query(
    sql.unsafe`INSERT INTO roles (id, name, description) VALUES (${role.id}, ${role.name}, ${role.description}) ON CONFLICT DO NOTHING`,
  );
  for (const [subject, action] of role.grants) {
    await db.query(
      sql.unsafe`INSERT INTO role_permissions (role_id, subject, action) VALUES (${role.id}, ${subject}, ${action}) ON CONFLICT DO NOTHING`,
    );
  }
  await db.query(sql.unsafe`
    INSERT INTO organizations (id, name, type, parent_id, created_at) VALUES (${AGENCY}, 'Bench Agency', 'AGENCY', NULL, '2026-01-01')
    ON CONFLICT DO NOTHING`);
  await db.query(sql.unsafe`
    INSERT INTO users (id, organization_id, type, email, name, email_verified_at) VALUES (${OWNER}, ${AGENCY}, 'user', 'owner@bench.test', 'Owner', now())
    ON CONFLICT DO NOTHING`);
  await db.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${OWNER}, ${role.id}) ON CONFLICT DO NOTHING`);
  for (let i = 0; i < 3; i++) {
    await db.query(sql.unsafe`
      INSERT INTO plans (id, organization_id, name, is_public, is_active, price_cents, usage_markup_percent, max_agents,
                         max_end_user_messages_per_month, created_at)
      VALUES (${plan(i)}, ${AGENCY}, ${`Plan ${i}`}, true, true, ${1999 + i * 3000}, ${i * 15}, 100, 100000000, '2026-01-01')
      ON CONFLICT DO NOTHING`);
    await db.query(sql.unsafe`
      INSERT INTO plan_prices (plan_id, price_cents, usage_markup_percent, starts_at)
      SELECT ${plan(i)}, ${1999 + i * 3000}, ${i * 15}, '2026-01-01' WHERE NOT EXISTS (SELECT 1 FROM plan_prices WHERE plan_id = ${plan(i)})`);
  }
  const exists = await db.oneFirst(sql.unsafe`SELECT count(*)::int AS n FROM organizations WHERE parent_id = ${AGENCY}`);
  if (exists === BUSINESSES) return;
  await db.query(sql.unsafe`
    INSERT INTO organizations (id, name, type, parent_id, plan_id, created_at)
    SELECT ('01900000-0000-7000-8000-' || lpad(to_hex(${0xa4 * 0x1000000}::int8 + n), 12, '0'))::uuid, 'Business ' || n, 'BUSINESS',
           ${AGENCY}, ('01900000-0000-7000-8000-' || lpad(to_hex(${0xa3 * 0x1000000}::int8 + n % 3), 12, '0'))::uuid, '2026-01-01'
    FROM generate_series(0, ${BUSINESSES - 1}) AS n`);
  await db.query(sql.unsafe`
    INSERT INTO business_plan_periods (organization_id, plan_id, starts_at)
    SELECT id, plan_id, '2026-01-01' FROM organizations WHERE parent_id = ${AGENCY}`);
}

/** Usage rows generated in PostgreSQL, BATCH a statement (the rollup triggers run per statement). */
async function fill(db: DatabasePool): Promise<void> {
  const have = await db.oneFirst(sql.unsafe`SELECT coalesce(sum(events), 0)::int8::float8 AS n FROM usage_rollup_month`);
  const start = performance.now();
  for (let done = Number(have); done < TOTAL_ROWS; done += BATCH) {
    const size = Math.min(BATCH, TOTAL_ROWS - done);
    // Row n: business n % 1000, a time spread over 2026-08-01 .. 2026-10-31, a quarter BYOK.
    await db.query(sql.unsafe`
      INSERT INTO usage_events (created_at, input_tokens, output_tokens, cache_read_tokens, id, organization_id, agent_id, user_id,
                                latency_ms, action_type, source, model_id, cost_usd)
      SELECT timestamptz '2026-08-01' + (((n * 7919) % 7948800) || ' seconds')::interval, 1000, 200, 0, gen_random_uuid(),
             ('01900000-0000-7000-8000-' || lpad(to_hex(${0xa4 * 0x1000000}::int8 + n % ${BUSINESSES}), 12, '0'))::uuid, NULL, NULL,
             800, 'user_interaction', CASE WHEN n % 4 = 0 THEN 'byok' ELSE 'system' END::usage_source,
             CASE n % 3 WHEN 0 THEN 'openai/gpt-4.1-mini' WHEN 1 THEN 'openai/gpt-4.1' ELSE 'anthropic/claude-sonnet-4' END,
             ((n % 1000) + 1) / 1000000.0
      FROM generate_series(${done}::int8, ${done + size - 1}::int8) AS n`);
    log(`  ${(done + size).toLocaleString('en-US')} rows (${((performance.now() - start) / 1000).toFixed(0)} s)`);
  }
  // What autovacuum would have done by the time an agency reads its bill.
  await db.query(sql.unsafe`ANALYZE`);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function serve(db: DatabasePool) {
  const app = createApp({ db, config: testConfig({ nodeEnv: 'production' }), logger: pino({ level: 'silent' }), rateLimits: false });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function billOnce(url: string, token: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${url}/api/agency/billing?month=2026-10`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { lines: unknown[] };
  const ms = performance.now() - start;
  if (response.status !== 200 || body.lines.length !== BUSINESSES) throw new Error(`bill answered ${response.status}`);
  return ms;
}

/** Service CPU (this process) per call of `run`, in ms, over CPU_CALLS sequential calls. */
async function cpuPerCall(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 100; i++) await run(); // warm
  const before = process.cpuUsage();
  for (let i = 0; i < CPU_CALLS; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / CPU_CALLS;
}

async function main(): Promise<void> {
  await ensureDatabase();
  const db = await createDatabasePool(dbUrl(), { maximumPoolSize: 4 });
  log(`seeding ${DB_NAME}: ${BUSINESSES} businesses, ${TOTAL_ROWS.toLocaleString('en-US')} usage rows`);
  await seed(db);
  await fill(db);
  const token = accessToken(OWNER, AGENCY);

  const cold: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const fresh = await createDatabasePool(dbUrl(), { maximumPoolSize: 2 });
    const app = await serve(fresh);
    cold.push(await billOnce(app.url, token));
    await app.close();
    await fresh.end();
  }
  const app = await serve(db);
  await billOnce(app.url, token);
  const cached: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let run = 0; run < CACHED_RUNS; run++) cached.push(await billOnce(app.url, token));
  const cpu = process.cpuUsage(cpuBefore);
  const cpuPerBill = (cpu.user + cpu.system) / 1000 / CACHED_RUNS;
  await app.close();
  // The statement alone, as the route runs it (PostgreSQL's time plus the rows' parsing).
  const statementMs: number[] = [];
  for (let run = 0; run < 20; run++) {
    const start = performance.now();
    await listBillLines(db, {
      organizationId: AGENCY,
      from: new Date('2026-10-01'),
      to: new Date('2026-11-01'),
      at: new Date('2026-11-01'),
    });
    statementMs.push(performance.now() - start);
  }
  const load = (await import('node:os')).loadavg()[0]!;

  const naive: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = performance.now();
    await db.any(sql.unsafe`
      SELECT organization_id, round(sum(cost_usd), 2) FROM usage_events
      WHERE created_at >= '2026-10-01' AND created_at < '2026-11-01' AND source = 'system'
        AND organization_id IN (SELECT id FROM organizations WHERE parent_id = ${AGENCY})
      GROUP BY organization_id`);
    naive.push(performance.now() - start);
  }

  const target = business(1);
  const agentCpu = await cpuPerCall(() => db.transaction((tx) => checkAgentLimit(tx, target, 1)));
  const baseline = await cpuPerCall(() => db.transaction(async (tx) => void (await tx.query(sql.unsafe`SELECT 1`))));
  // An end user of the target business, counted by the channel's one statement (its day and the business's month)
  // against the day's count alone (the statement before plans had limits): the difference is what the plan adds.
  const agentId = '01900000-0000-7000-8000-0000000be001';
  const endUserId = '01900000-0000-7000-8000-0000000be002';
  await db.query(sql.unsafe`
    INSERT INTO agents (id, organization_id, name) VALUES (${agentId}, ${target}, 'Bench agent') ON CONFLICT DO NOTHING`);
  await db.query(sql.unsafe`
    INSERT INTO end_users (id, organization_id, agent_id, kind, external_id, created_at, last_seen_at)
    VALUES (${endUserId}, ${target}, ${agentId}, 'client', 'bench', now(), now()) ON CONFLICT DO NOTHING`);
  let day = 0;
  // A new day each call, so the day's limit is never reached; the bench's plans allow 100M messages a month.
  const nextDay = () => new Date(Date.UTC(2030, 0, 1) + 86_400_000 * day++);
  const messageCpu = await cpuPerCall(() => countEndUserTurn({ db, clock: nextDay }, { endUserId, organizationId: target }, 1_000));
  const dayOnlyCpu = await cpuPerCall(async () => {
    const at = nextDay().toISOString().slice(0, 10);
    await db.maybeOne(sql.unsafe`
      INSERT INTO end_user_daily_messages AS d (end_user_id, day, messages) VALUES (${endUserId}, ${at}::date, 1)
      ON CONFLICT (end_user_id, day) DO UPDATE SET messages = d.messages + 1 WHERE d.messages < 1000
      RETURNING messages`);
  });
  // What any one statement costs the service through the pool (the floor of a check that is one statement).
  const statement = await cpuPerCall(async () => void (await db.query(sql.unsafe`SELECT 1`)));
  const rows = await db.oneFirst(sql.unsafe`SELECT coalesce(sum(events), 0)::int8::float8 AS n FROM usage_rollup_month`);
  await db.end();

  const f = (ms: number) => ms.toFixed(ms < 1 ? 3 : 1);
  process.stdout.write(
    [
      `usage rows: ${Number(rows).toLocaleString('en-US')}, businesses: ${BUSINESSES}`,
      `GET /api/agency/billing (1,000 lines), cold p50 ${f(percentile(cold, 50))} ms, p95 ${f(percentile(cold, 95))} ms (${RUNS} runs)`,
      `GET /api/agency/billing, cached p50 ${f(percentile(cached, 50))} ms, p95 ${f(percentile(cached, 95))} ms (${CACHED_RUNS} runs)`,
      `  service CPU per cached bill (server and client in this process): ${f(cpuPerBill)} ms`,
      `  the bill's statement alone: p50 ${f(percentile(statementMs, 50))} ms`,
      `naive sum over the month's raw rows: p50 ${f(percentile(naive, 50))} ms`,
      `load average (1 min) at the end: ${load.toFixed(1)} on ${(await import('node:os')).cpus().length} CPUs`,
      `agent create, plan-limit check: ${f(agentCpu - baseline)} ms service CPU added (${f(agentCpu)} ms with its transaction, ${f(baseline)} ms an empty one)`,
      `end-user message, monthly count: ${f(messageCpu - dayOnlyCpu)} ms service CPU added (${f(messageCpu)} ms the day and month in one statement, ${f(dayOnlyCpu)} ms the day alone; \`SELECT 1\` through the pool: ${f(statement)} ms)`,
      '',
    ].join('\n'),
  );
}

await main();
