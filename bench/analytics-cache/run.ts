/**
 * Analytics cache soak (issue 22): distinct analytics queries at full speed for `--minutes`
 * (default 10) against a real PostgreSQL seeded with the demo data, printing per minute the
 * requests answered, the cache's entries, bytes and evictions, and the process's RSS, heap and Buffers.
 * Every request is a new cache key (its window starts one minute earlier than the last one of
 * its kind), so before the byte bound each one stayed in memory for 300 s.
 *
 *   npm run bench:analytics-cache -- --minutes 10 [--mix large|small] [--concurrency 8] [--max-mb 64] [--limits]
 *
 * `--mix large` (default): 120-day windows, hourly series among them (answers up to ~100 KB; the
 * budget fills within two minutes). `--mix small`: 7-day windows of the lighter endpoints (answers
 * of a few hundred bytes to a few KB): many more requests and entries, so the per-entry charge is
 * what keeps memory bounded.
 *
 * Each minute the process is also measured right after a full garbage collection (`--expose-gc`,
 * set by the npm script): what it really keeps, apart from garbage waiting for the next major GC.
 * The server runs in this process (the load generator's own memory is small and steady: a
 * fixed number of keep-alive sockets whose bodies are discarded). The routes' per-user limit
 * (600 a minute) is off unless `--limits`: with it on, one token is refused long before the
 * cache matters, and the bound under test is the cache's. Needs PostgreSQL on 127.0.0.1:5432
 * (BENCH_ADMIN_URL); creates and drops a database `bench_analytics_cache_*`.
 */
import { randomBytes } from 'node:crypto';
import { Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { analyticsCacheStats } from '../../app/analytics/cache.ts';
import { createApp } from '../../app/app.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { migrate } from '../../sql/migrate.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { testConfig } from '../../test/helpers/app.ts';
import { withAdmin } from '../../test/helpers/database.ts';
import { distinctQuery, mixOf } from './queries.ts';
import { formatTable, type MinuteRow } from './table.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'max-mb': { type: 'string', default: '64' },
    limits: { type: 'boolean', default: false },
    mix: { type: 'string', default: 'large' },
  },
});
const MINUTES = Number(values.minutes);
const CONCURRENCY = Number(values.concurrency);
const MAX_MB = Number(values['max-mb']);
const MIX = mixOf(values.mix);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const database = `bench_analytics_cache_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();

async function main(): Promise<void> {
  log(
    `creating database ${database} (demo data), ${MINUTES} min, ${CONCURRENCY} in flight, budget ${MAX_MB} MiB, limits ${values.limits ? 'on' : 'off'}`,
  );
  await withAdmin((client) => client.query(`CREATE DATABASE ${database}`), ADMIN_URL);
  try {
    await migrate(databaseUrl);
    const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: CONCURRENCY + 2 });
    try {
      await seedDemo(pool);
      await soak(pool);
    } finally {
      await pool.end();
    }
  } finally {
    await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`), ADMIN_URL);
  }
}

async function soak(pool: Awaited<ReturnType<typeof createDatabasePool>>): Promise<void> {
  const config = testConfig({ databaseUrl, analyticsCacheMaxBytes: MAX_MB * 1024 * 1024, logLevel: 'silent' });
  const app = createApp({
    db: pool,
    config,
    logger: pino({ level: 'silent' }),
    ...(values.limits ? {} : { rateLimits: false }),
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const token = accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id);
  const before = process.memoryUsage();
  log(`before load: RSS ${mb(before.rss)} MB, heap ${mb(before.heapUsed)} MB`);

  let sent = 0;
  const statuses = new Map<number, number>();
  const deadline = Date.now() + MINUTES * 60_000;
  const ask = (path: string) =>
    new Promise<void>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        statuses.set(response.statusCode ?? 0, (statuses.get(response.statusCode ?? 0) ?? 0) + 1);
        response.resume();
        response.on('end', resolve);
        response.on('error', reject);
      }).on('error', reject);
    });
  const worker = async () => {
    while (Date.now() < deadline) await ask(distinctQuery(MIX, sent++, new Date()));
  };

  // Memory is read every second: RSS moves by tens of MB with each major GC, so one reading a
  // minute says little; the table gives each minute's last reading and its highest.
  let minuteRssMax = 0;
  const rssTimer = setInterval(() => (minuteRssMax = Math.max(minuteRssMax, process.memoryUsage().rss)), 1_000);
  const rows: MinuteRow[] = [];
  let answeredBefore = 0;
  const sample = () => {
    const answered = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    const stats = analyticsCacheStats(app.deps);
    const memory = process.memoryUsage();
    // What survives a full collection: the memory the process really keeps (the cache among it).
    globalThis.gc?.();
    const retained = process.memoryUsage();
    rows.push({
      minute: rows.length + 1,
      requests: answered - answeredBefore,
      non200: answered - (statuses.get(200) ?? 0),
      entries: stats.entries,
      cacheMb: mb(stats.bytes),
      evictions: stats.evictions,
      rssMb: mb(memory.rss),
      rssMaxMb: mb(Math.max(minuteRssMax, memory.rss)),
      heapMb: mb(memory.heapUsed),
      buffersMb: mb(memory.arrayBuffers),
      heapAfterGcMb: mb(retained.heapUsed),
      rssAfterGcMb: mb(retained.rss),
    });
    minuteRssMax = 0;
    answeredBefore = answered;
    log(formatTable(rows.slice(-1), false));
  };
  const timer = setInterval(sample, 60_000);
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  clearInterval(timer);
  clearInterval(rssTimer);
  if (rows.length < MINUTES) sample();
  agent.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));

  process.stdout.write(`${formatTable(rows, true)}\n`);
  process.stdout.write(`${flatness(rows)}\nstatuses: ${[...statuses].map(([status, n]) => `${status}: ${n}`).join(', ')}; `);
  process.stdout.write(`cache budget ${MAX_MB} MiB; RSS before load ${mb(before.rss)} MB\n`);
}

/**
 * Whether RSS stayed flat: the highest RSS of the second half of the run against the first half's
 * (from minute 2, once the cache has had time to fill). Growth would show as a ratio well above 1.
 */
function flatness(rows: MinuteRow[]): string {
  const settled = rows.slice(1);
  if (settled.length < 2) return 'too short to compare halves';
  const half = Math.floor(settled.length / 2);
  const peak = (part: MinuteRow[]) => Math.max(...part.map((row) => row.rssMaxMb));
  const [early, late] = [peak(settled.slice(0, half)), peak(settled.slice(half))];
  const lastMinutes = `minutes ${settled[half]!.minute}-${rows.at(-1)!.minute}`;
  return `highest RSS minutes 2-${settled[half - 1]!.minute}: ${early} MB; ${lastMinutes}: ${late} MB (x${(late / early).toFixed(2)})`;
}

await main();
