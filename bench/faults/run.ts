/**
 * Faults under load (issue 13): loopback load over a mix of routes (limited identity routes,
 * analytics and agent reads, agent and tool-set writes) while a private Redis is paused
 * (DEBUG SLEEP) and its connections killed (CLIENT KILL), and while the PostgreSQL backends of
 * the bench's own database are terminated. Prints per-second status counts and latency
 * percentiles, then checks: no 5xx but documented 503s, no request stalled more than 1 s beyond
 * a fault, every acknowledged write present afterwards, the limiter back on Redis after the faults.
 *
 *   npm run bench:faults
 *   BENCH_FAULTS_REDIS_PORT=7250 BENCH_FAULTS_SECONDS=30 BENCH_FAULTS_WORKERS=12 npm run bench:faults
 *
 * Needs PostgreSQL on 127.0.0.1:5432 (BENCH_ADMIN_URL) and `redis-server` on the PATH. It creates
 * and drops a database `bench_faults_*` and starts (and stops) its own redis-server: faults are
 * never injected into a shared server.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ResilientStore } from '@agents/rate-limit';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import { Agent } from 'undici';
import { createApp } from '../../app/app.ts';
import { systemTimers, type AppDeps } from '../../app/core/deps.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { createRateLimitStore } from '../../app/core/route-rate-limit.ts';
import { DEMO_PASSWORD } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { migrate } from '../../sql/migrate.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { withAdmin } from '../../test/helpers/database.ts';
import { runSchedule, type Fault } from './faults.ts';
import { runWorker, type Sample } from './load.ts';
import { startPrivateRedis } from './private-redis.ts';
import { latencyTable, perSecondTable, sampleChecks, type Check } from './report.ts';
import { writeChecks } from './write-checks.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../app/identity/tokens.ts';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_PORT = Number(process.env.BENCH_FAULTS_REDIS_PORT ?? 7250);
// The faults run from 4 s to 25 s; the load runs on for a few seconds of recovery.
const SECONDS = Math.max(28, Number(process.env.BENCH_FAULTS_SECONDS ?? 30));
const WORKERS = Number(process.env.BENCH_FAULTS_WORKERS ?? 12);
const log = (line: string) => process.stderr.write(`${line}\n`);
const now = () => performance.now();

const database = `bench_faults_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();

async function main(): Promise<number> {
  log(`creating database ${database} and starting redis-server on 127.0.0.1:${REDIS_PORT}`);
  await withAdmin((client) => client.query(`CREATE DATABASE ${database}`), ADMIN_URL);
  const redisServer = await startPrivateRedis(REDIS_PORT);
  const control = new pg.Client({ connectionString: databaseUrl });
  const cleanups: (() => Promise<unknown>)[] = [
    () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`), ADMIN_URL),
    () => redisServer.stop(),
  ];
  try {
    await migrate(databaseUrl);
    const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 10 });
    cleanups.unshift(() => pool.end());
    await seedDemo(pool);
    // As app/server.ts connects: one retry, no offline queue, errors logged rather than thrown.
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    redis.on('error', () => {});
    cleanups.unshift(async () => redis.disconnect());
    const config = testConfig({ databaseUrl, redisUrl: redisServer.url, trustProxyHops: 1, logLevel: 'silent' });
    const logger = pino({ level: 'silent' });
    const deps: AppDeps = {
      db: pool,
      redis,
      config,
      clock: () => new Date(),
      timers: systemTimers,
      logger,
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    };
    const store = createRateLimitStore(deps) as ResilientStore;
    const app = createApp({ db: pool, redis, config, logger, rateLimitStore: store });
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.unshift(() => new Promise((resolve) => server.close(resolve)));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dispatcher = new Agent({ connections: WORKERS * 2, keepAliveTimeout: 10_000 });
    cleanups.unshift(() => dispatcher.close());

    const login = await fetch(`${baseUrl}/api/identity/auth/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.19.255.1' },
      body: JSON.stringify({ email: 'owner@demo.test', password: DEMO_PASSWORD }),
    });
    const { accessToken: token } = (await login.json()) as { accessToken: string };
    const workerAgents: string[] = [];
    for (let w = 0; w < WORKERS; w++) {
      const created = await fetch(`${baseUrl}/api/ai/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: `bench worker ${w}` }),
      });
      workerAgents.push(((await created.json()) as { id: string }).id);
    }

    await control.connect();
    cleanups.unshift(() => control.end());
    const samples: Sample[] = [];
    const faults: Fault[] = [];
    const origin = now();
    const context = { baseUrl, token, workerAgents, now, stopAt: origin + SECONDS * 1000 };
    log(`load: ${WORKERS} workers for ${SECONDS} s; faults from 4 s to 25 s`);
    const progress = setInterval(() => {
      const state = pool.state();
      log(
        `  ${((now() - origin) / 1000).toFixed(0)} s: ${samples.length} requests, ${faults.length} faults; pool ${JSON.stringify(state)}`,
      );
    }, 5_000);
    await Promise.all([
      ...workerAgents.map((_, w) => runWorker(context, w, dispatcher, samples)),
      runSchedule({ redis: redisServer.control, pg: control, database, now }, origin, faults),
    ]);

    clearInterval(progress);
    log('load done; checking');
    const checks: Check[] = [...sampleChecks(samples, faults), ...(await writeChecks(pool, samples))];
    checks.push(await limiterBackOnRedis(baseUrl, dispatcher, redisServer.control, store));

    const print = (line: string) => process.stdout.write(`${line}\n`);
    print(`\nFaults (seconds from the start of the load):`);
    for (const f of faults) print(`  ${((f.startMs - origin) / 1000).toFixed(2)}-${((f.endMs - origin) / 1000).toFixed(2)} s  ${f.name}`);
    print(`\nPer second (requests by the second they ended):`);
    perSecondTable(samples, faults, origin).forEach((line) => print(line));
    print(`\nLatency by request kind (${samples.length} requests, ${(samples.length / SECONDS).toFixed(0)}/s):`);
    latencyTable(samples).forEach((line) => print(line));
    print(`\nChecks:`);
    for (const check of checks) print(`  ${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
    return checks.every((check) => check.ok) ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

/**
 * After the faults the limiter must count in Redis again, not in its in-memory fallback: a fresh
 * client address is denied on its fourth check-email (3 a minute) and its window is a key in Redis.
 */
async function limiterBackOnRedis(baseUrl: string, dispatcher: Agent, redis: Redis, store: ResilientStore): Promise<Check> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const ip = '198.19.0.77';
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await fetch(`${baseUrl}/api/identity/auth/user/check-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ email: `after-${i}@bench.test` }),
      dispatcher,
    } as RequestInit);
    statuses.push(response.status);
    await response.arrayBuffer();
  }
  const keys = await redis.keys(`rate-limit:*ip:${ip}*`);
  // The sliding log is a list of timestamps, oldest first (lib/rate-limit ADR 0052).
  const members = keys[0] ? await redis.llen(keys[0]) : 0;
  const ok = !store.isDown && statuses[3] === 429 && keys.length === 1 && members === 3;
  return {
    name: 'the limiter is back on Redis after the faults',
    ok,
    detail: `store ${store.isDown ? 'down' : 'up'}, statuses ${statuses.join(' ')}, Redis key ${keys[0] ?? 'missing'} with ${members} entries`,
  };
}

process.exitCode = await main();
