/**
 * An hour under load (issue 23): the service (`app/server.ts` as a child process, see service.ts)
 * on a database of its own and a Redis database index of its own, driven by a mixed load (reads,
 * writes, analytics, limited routes, MCP tool listing against a local SDK MCP server). It measures
 * the highest throughput of the mix (closed loop), then holds 80 % of it and prints one table row
 * per window. Exits 1 when a check fails (report.ts).
 *
 *   npm run bench:soak -- --minutes 60
 *   npm run bench:soak -- --minutes 3 --window-seconds 30
 *
 * Options: --minutes (60), --window-seconds (300), --calibrate-seconds (25), --concurrency (16),
 * --redis-db (13; must be empty at the start, and is emptied at the end). Needs PostgreSQL
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Redis
 * (BENCH_REDIS_URL, default redis://127.0.0.1:6379). Creates and drops a database `bench_soak_*`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Agent } from 'undici';
import { AGENTS, DEMO_PASSWORD, USERS } from '../../seeds/demo-fixtures.ts';
import { startMcpToolPeer } from '../../test/helpers/mcp-tool-peer.ts';
import { urlFor, withAdmin } from '../../test/helpers/database.ts';
import { closedLoop, listMcpTools, pacedLoop, type LoadContext, type Sample, type Tokens } from './load.ts';
import { checks, StatusTally, tableHeader, tableLine, windowRow, type Reading, type WindowRow } from './report.ts';
import { startService } from './service.ts';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'window-seconds': { type: 'string', default: '300' },
    'calibrate-seconds': { type: 'string', default: '25' },
    concurrency: { type: 'string', default: '16' },
    'redis-db': { type: 'string', default: '13' },
  },
});
const number = (name: keyof typeof args) => {
  const value = Number(args[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const TOTAL_SECONDS = number('minutes') * 60;
const WINDOW_SECONDS = number('window-seconds');
const CALIBRATE_SECONDS = number('calibrate-seconds');
const WORKERS = Math.round(number('concurrency'));
const REDIS_DB = Math.round(number('redis-db'));
/** Tokens are fetched again this often (they live 15 minutes); the MCP tools are listed every 2.5 s (its limit is 30 a minute). */
const LOGIN_EVERY_MS = 10 * 60_000;
const MCP_EVERY_MS = 2_500;
const READ_EVERY_MS = 5_000;

const log = (line: string) => process.stderr.write(`${line}\n`);
const print = (line: string) => process.stdout.write(`${line}\n`);
const database = `bench_soak_${Date.now().toString(36)}`;
const redisUrl = `${(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/\d*$/, '')}/${REDIS_DB}`;

let logins = 0;
async function login(baseUrl: string, email: string): Promise<string> {
  // Each login from an address of its own: the login route allows 10 per 15 minutes per address.
  logins++;
  const response = await fetch(`${baseUrl}/api/identity/auth/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.19.${Math.floor(logins / 250)}.${(logins % 250) + 1}` },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`login of ${email} answered ${response.status}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function post(baseUrl: string, token: string, path: string, body: unknown): Promise<{ id: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string };
}

async function main(): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const cleanups: (() => Promise<unknown>)[] = [async () => redis.disconnect()];
  try {
    if ((await redis.dbsize()) > 0) throw new Error(`Redis database ${REDIS_DB} is not empty; choose another with --redis-db`);
    // Everything in the database index from here on is the bench's own, removed at the end.
    cleanups.unshift(async () => {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
        if (keys.length) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    });
    log(`creating database ${database}; Redis database ${REDIS_DB}`);
    await withAdmin((client) => client.query(`CREATE DATABASE ${database}`));
    cleanups.unshift(() => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-soak-'));
    cleanups.unshift(() => rm(dataDir, { recursive: true, force: true }));
    const mcpPeer = await startMcpToolPeer();
    cleanups.unshift(() => mcpPeer.close());

    const service = await startService(
      {
        // development: the service may call the MCP server on loopback (app/net/url-policy.ts).
        NODE_ENV: 'development',
        DATABASE_URL: urlFor(database),
        REDIS_URL: redisUrl,
        SEED_DEMO: 'true',
        DATA_DIR: dataDir,
        TRUST_PROXY_HOPS: '1',
        LOG_LEVEL: process.env.BENCH_SOAK_LOG_LEVEL ?? 'warn',
      },
      log,
    );
    cleanups.unshift(() => service.stop().then((code) => log(`service exited with code ${code}`)));
    const control = new pg.Client({ connectionString: urlFor(database) });
    await control.connect();
    cleanups.unshift(() => control.end());
    const dispatcher = new Agent({ connections: WORKERS * 2, keepAliveTimeout: 10_000 });
    cleanups.unshift(() => dispatcher.close());

    const { baseUrl } = service;
    const fetchTokens = async (): Promise<Tokens> => ({
      owner: await login(baseUrl, USERS.owner.email),
      otherOwner: await login(baseUrl, USERS.otherOwner.email),
    });
    const tokens = await fetchTokens();
    const workerAgents: string[] = [];
    for (let w = 0; w < WORKERS; w++)
      workerAgents.push((await post(baseUrl, tokens.owner, '/api/ai/agents', { name: `soak worker ${w}` })).id);
    const agentId = AGENTS.support.id;
    const mcpServer = await post(baseUrl, tokens.owner, `/api/ai/agents/${agentId}/mcp-servers`, {
      name: 'Soak MCP',
      transportType: 'http',
      url: mcpPeer.url,
    });

    let bucket: Sample[] = [];
    const tally = new StatusTally();
    let soaking = false;
    const record = (sample: Sample) => {
      bucket.push(sample);
      if (soaking) tally.add(sample);
    };
    const context: LoadContext = { baseUrl, dispatcher, tokens, workerAgents, mcp: { agentId, serverId: mcpServer.id }, record };
    const timers = [
      setInterval(
        () =>
          void fetchTokens().then(
            (fresh) => Object.assign(context.tokens, fresh),
            (error: unknown) => log(`login: ${String(error)}`),
          ),
        LOGIN_EVERY_MS,
      ),
      setInterval(() => void listMcpTools(context), MCP_EVERY_MS),
    ];
    cleanups.unshift(async () => timers.forEach((timer) => clearInterval(timer)));

    log(`calibrating: ${WORKERS} workers, closed loop, ${CALIBRATE_SECONDS} s`);
    const calibrationStart = performance.now();
    const slots = await closedLoop(context, WORKERS, calibrationStart + CALIBRATE_SECONDS * 1000);
    const calibration = bucket;
    bucket = [];
    const maxSlotsPerSecond = slots / CALIBRATE_SECONDS;
    const rate = 0.8 * maxSlotsPerSecond;
    print(
      `Calibration: ${calibration.length} requests in ${CALIBRATE_SECONDS} s (${(calibration.length / CALIBRATE_SECONDS).toFixed(0)}/s, ` +
        `${maxSlotsPerSecond.toFixed(1)} mix slots/s, ${calibration.filter((s) => s.status >= 500).length} 5xx); soak at 80 %: ${rate.toFixed(1)} slots/s`,
    );
    print(
      `Soak: ${TOTAL_SECONDS / 60} min, windows of ${WINDOW_SECONDS} s, service pid ${service.pid}, database ${database}, Redis db ${REDIS_DB}\n`,
    );
    tableHeader().forEach(print);

    const rows: WindowRow[] = [];
    const totals = { fiveXx: calibration.filter((s) => s.status >= 500).length, noAnswer: 0 };
    let readings: Reading[] = [];
    soaking = true;
    const origin = performance.now();
    const readService = async () => {
      const stats = await service.stats();
      readings.push({ rssBytes: stats.rssBytes, heapUsedBytes: stats.heapUsedBytes, loopDelayP99Ms: stats.loopDelayP99Ms });
    };
    await service.stats(); // resets the event-loop histogram: the windows start here
    const closeWindow = async () => {
      await readService();
      const samples = bucket;
      bucket = [];
      const pgConnections = await control.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      const info = await redis.info('memory');
      const row = windowRow(rows.length + 1, Math.round((performance.now() - origin) / 1000), samples, readings, {
        pgConnections: pgConnections.rows[0]!.n,
        redisUsedBytes: Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0),
        redisKeys: await redis.dbsize(),
      });
      readings = [];
      totals.fiveXx += row.fiveXx;
      totals.noAnswer += samples.filter((s) => s.status === 0).length;
      rows.push(row);
      print(tableLine(row));
    };
    const reader = setInterval(() => void readService().catch((error: unknown) => log(`probe: ${String(error)}`)), READ_EVERY_MS);
    // Windows 1..n-1 close on timers; the last closes when the load has stopped, with the requests still in flight then.
    let windowChain = Promise.resolve();
    const windowCount = Math.ceil(TOTAL_SECONDS / WINDOW_SECONDS);
    const windowTimers = Array.from({ length: windowCount - 1 }, (_, k) =>
      setTimeout(
        () => (windowChain = windowChain.then(closeWindow).catch((error: unknown) => void log(`window: ${String(error)}`))),
        origin + (k + 1) * WINDOW_SECONDS * 1000 - performance.now(),
      ),
    );
    const { worstLagMs, skipped } = await pacedLoop(context, WORKERS, rate, origin + TOTAL_SECONDS * 1000);
    clearInterval(reader);
    windowTimers.forEach((timer) => clearTimeout(timer));
    await windowChain;
    await closeWindow();

    print(`\nSlots skipped (more than 1 s behind their schedule): ${skipped}; largest delay of a sent slot: ${worstLagMs.toFixed(0)} ms`);
    print('Answers by kind and status (429 on a limited route is expected):');
    tally.lines().forEach(print);
    print('Checks:');
    const results = checks(rows, TOTAL_SECONDS, totals);
    for (const check of results) print(`  ${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
    return results.every((check) => check.ok) ? 0 : 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

process.exitCode = await main();
