/**
 * Ingestion benchmark (issue 25): usage rows per second into a large usage table through
 *   - the events API (batches of 1000 events, 8 requests in flight),
 *   - OTLP/HTTP protobuf (batches of 512 spans, 8 in flight),
 *   - the same event batches sent again (every event a duplicate),
 * beside the CLI import (`import-usage`) of the same number of rows on the same run, with the
 * p50/p99 latency per batch. The database `bench_ingest` is built once with BENCH_ROWS rows
 * (default 10,000,000, as bench:analytics) and reused; the measured rows are deleted afterwards.
 *
 *   npm run bench:ingest
 *   BENCH_ROWS=1000000 BENCH_INGEST_ROWS=100000 npm run bench:ingest   # scaled down
 *
 * The service runs in a process of its own (bench/service-child.ts, NODE_ENV=production), as
 * deployed: the clients sending the batches stay here, so they take none of its event loop, and
 * its CPU per batch is read from /proc. The route's 600/min limit per key is off there (it would
 * cap the events path at 10 batches a second): what is measured is the ingestion path itself.
 * A last row, the floor (storage-floor.ts), writes the same kind of batches with the route's
 * statement straight from here: what PostgreSQL alone allows at c=8 on this machine.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { sql, type DatabasePool } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { importUsageFile } from '../../app/analytics/ingest/usage-import.ts';
import { newApiKeySecret } from '../../app/core/api-key-secret.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { traceService } from '../../test/helpers/otlp-proto.ts';
import { generateUsage } from '../../seeds/usage-generator.ts';
import { insertApiKey } from '../../sql/api-keys.ts';
import { migrate } from '../../sql/migrate.ts';
import { insertUsageEvents, type UsageEventInput } from '../../sql/usage-events.ts';
import { TEST_JWT_SECRET } from '../../test/helpers/config.ts';
import { cpuMsOf, startService, stopService } from '../service-process.ts';
import { storageAlone } from './storage-floor.ts';

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = process.env.BENCH_INGEST_DB ?? 'bench_ingest';
const BASE_ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const ROWS = Number(process.env.BENCH_INGEST_ROWS ?? 200_000);
const CONCURRENCY = 8;
/** Fewer batches than this and p99 is little more than the slowest batch. */
const MIN_BATCHES = 200;
/** The issue's target for p99 per batch. */
const P99_TARGET_MS = 250;
const EVENTS_PER_BATCH = 1000;
const SPANS_PER_BATCH = 512;
const BASE_ORGS = 20;
const END = new Date(Date.UTC(2026, 10, 1));
const log = (line: string) => process.stderr.write(`${line}\n`);
const dbUrl = () => Object.assign(new URL(ADMIN_URL), { pathname: `/${DB_NAME}` }).toString();
const orgId = (i: number) => `01900000-0000-7000-8000-${(0xc000 + i).toString(16).padStart(12, '0')}`;

async function ensureBase(db: DatabasePool): Promise<void> {
  // The planner's estimate (exact after the VACUUM ANALYZE below): counting 10M rows costs seconds.
  const estimate = Number(
    await db.oneFirst(sql.unsafe`SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'usage_events'::regclass`),
  );
  if (estimate >= BASE_ROWS * 0.99) {
    log(`reusing ${DB_NAME}: about ${estimate} rows`);
    return;
  }
  const count = Number(await db.oneFirst(sql.unsafe`SELECT count(*) AS n FROM usage_events`));
  if (count > 0) throw new Error(`${DB_NAME} holds ${count} rows, fewer than ${BASE_ROWS}: drop it and run again`);
  const per = Math.ceil(BASE_ROWS / BASE_ORGS);
  const started = performance.now();
  let done = 0;
  for (let i = 0; i < BASE_ORGS; i++) {
    await db.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${orgId(i)}, ${`Base ${i}`}, 'AGENCY')`);
    for (const batch of generateUsage({
      organizationId: orgId(i),
      rows: Math.min(per, BASE_ROWS - done),
      days: 365,
      end: END,
      seed: i + 1,
      batchSize: 10_000,
    })) {
      await insertUsageEvents(db, batch);
      done += batch.length;
    }
    log(`base: ${done} rows, ${Math.round(done / ((performance.now() - started) / 1000))} rows/s`);
  }
  await db.query(sql.unsafe`VACUUM ANALYZE usage_events`);
}

/** A fresh organization for one measured path (deleted, with its rows, at the end). */
async function freshOrganization(db: DatabasePool, name: string): Promise<string> {
  const id = uuidv7();
  await db.query(sql.unsafe`INSERT INTO organizations (id, name, type) VALUES (${id}, ${name}, 'AGENCY')`);
  return id;
}

function sample(organizationId: string, seed: number): UsageEventInput[] {
  return [...generateUsage({ organizationId, rows: ROWS, days: 30, end: END, seed, batchSize: ROWS })].flat();
}

type Post = { path: string; type: string; body: Buffer };
type Run = { rows: number; seconds: number; latencies: number[] };

/** Sends the posts with CONCURRENCY in flight over keep-alive connections; every answer must be 200. */
async function sendAll(port: number, key: string, posts: Post[], rowsPerPost: number[]): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < posts.length) {
      const post = posts[next++]!;
      const sent = performance.now();
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: post.path,
            agent,
            headers: { authorization: `Bearer ${key}`, 'content-type': post.type, 'content-length': post.body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${post.path}: ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(post.body);
      });
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return { rows: rowsPerPost.reduce((a, b) => a + b, 0), seconds: (performance.now() - started) / 1000, latencies };
}

function eventPosts(rows: UsageEventInput[]): { posts: Post[]; sizes: number[] } {
  const posts: Post[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < rows.length; i += EVENTS_PER_BATCH) {
    const batch = rows.slice(i, i + EVENTS_PER_BATCH);
    const events = batch.map(({ organizationId: _o, id, ...event }) => ({
      ...event,
      id,
      costUsd: Number(event.costUsd),
      agentId: undefined,
      userId: undefined,
    }));
    posts.push({ path: '/api/ai/org-usage/events', type: 'application/json', body: Buffer.from(JSON.stringify({ events })) });
    sizes.push(batch.length);
  }
  return { posts, sizes };
}

const nanos = (at: string | Date) => BigInt(new Date(at).getTime()) * 1_000_000n;

function otlpPosts(rows: UsageEventInput[]): { posts: Post[]; sizes: number[] } {
  const { request } = traceService();
  const posts: Post[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < rows.length; i += SPANS_PER_BATCH) {
    const batch = rows.slice(i, i + SPANS_PER_BATCH);
    const spans = batch.map((row, index) => {
      const end = nanos(row.createdAt);
      const attribute = (key: string, value: Record<string, unknown>) => ({ key, value });
      return {
        traceId: Buffer.from(row.id.replace(/-/g, ''), 'hex'),
        spanId: Buffer.from((i + index + 1).toString(16).padStart(16, '0'), 'hex'),
        name: `chat ${row.modelId}`,
        kind: 3,
        startTimeUnixNano: String(end - BigInt(row.latencyMs ?? 0) * 1_000_000n),
        endTimeUnixNano: String(end),
        attributes: [
          attribute('gen_ai.operation.name', { stringValue: 'chat' }),
          attribute('gen_ai.request.model', { stringValue: row.modelId }),
          attribute('gen_ai.usage.input_tokens', { intValue: row.inputTokens + row.cacheReadTokens }),
          attribute('gen_ai.usage.output_tokens', { intValue: row.outputTokens }),
          attribute('gen_ai.usage.cache_read.input_tokens', { intValue: row.cacheReadTokens }),
          attribute('agents.usage.source', { stringValue: row.source }),
          attribute('agents.usage.action', { stringValue: row.actionType }),
        ],
      };
    });
    const message = request.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench-agent' } }] },
          scopeSpans: [{ scope: { name: 'bench' }, spans }],
        },
      ],
    });
    posts.push({ path: '/api/otlp/v1/traces', type: 'application/x-protobuf', body: Buffer.from(request.encode(message).finish()) });
    sizes.push(batch.length);
  }
  return { posts, sizes };
}

async function cliImport(db: DatabasePool, rows: UsageEventInput[]): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-ingest-'));
  const path = join(dir, 'usage.ndjson');
  const out = createWriteStream(path);
  for (let i = 0; i < rows.length; i += 10_000) {
    const text = rows
      .slice(i, i + 10_000)
      .map(({ id: _id, ...event }) => JSON.stringify(event))
      .join('\n');
    if (!out.write(`${text}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  const started = performance.now();
  const { rows: imported } = await importUsageFile(db, path);
  const seconds = (performance.now() - started) / 1000;
  await rm(dir, { recursive: true, force: true });
  return { rows: imported, seconds, latencies: [] };
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
};

const latencyVersusTarget = (name: string, run: Run) => {
  const p99 = percentile(run.latencies, 0.99);
  return `${name} p50 ${percentile(run.latencies, 0.5).toFixed(0)} / p99 ${p99.toFixed(0)} ms (${p99 <= P99_TARGET_MS ? 'met' : 'missed'})`;
};

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME])).rowCount)
    await admin.query(`CREATE DATABASE "${DB_NAME.replace(/[^a-z0-9_]/g, '')}"`);
  await admin.end();
  await migrate(dbUrl());
  const db = await createDatabasePool(dbUrl(), { maximumPoolSize: 10 });
  await ensureBase(db);

  const service = await startService({ databaseUrl: dbUrl(), nodeEnv: 'production' });
  const { port } = service;
  const pid = service.child.pid!;
  const created: string[] = [];
  const keyFor = async (organizationId: string) => {
    const secret = newApiKeySecret(TEST_JWT_SECRET);
    await insertApiKey(db, {
      id: uuidv7(),
      organizationId,
      name: 'bench',
      scopes: ['usage:write'],
      prefix: secret.prefix,
      keyHash: secret.hash,
      createdBy: null,
      createdAt: new Date(),
    });
    return secret.key;
  };
  try {
    const cliOrg = await freshOrganization(db, 'Bench CLI');
    const eventsOrg = await freshOrganization(db, 'Bench events');
    const otlpOrg = await freshOrganization(db, 'Bench OTLP');
    const storageOrg = await freshOrganization(db, 'Bench storage');
    created.push(cliOrg, eventsOrg, otlpOrg, storageOrg);
    const events = eventPosts(sample(eventsOrg, 11));
    const otlp = otlpPosts(sample(otlpOrg, 12));
    log(`measuring ${ROWS} rows per path over a table of ${BASE_ROWS}+ rows`);
    if (events.posts.length < MIN_BATCHES) {
      log(`warning: ${events.posts.length} event batches (< ${MIN_BATCHES}): p99 is about the slowest batch; raise BENCH_INGEST_ROWS`);
    }
    const cli = await cliImport(db, sample(cliOrg, 10));
    const eventsKey = await keyFor(eventsOrg);
    const cpu: Record<string, number> = {};
    const measured = async (name: string, run: () => Promise<Run>) => {
      const before = cpuMsOf(pid);
      const result = await run();
      cpu[name] = (cpuMsOf(pid) - before) / result.latencies.length;
      return result;
    };
    const fresh = await measured('fresh', () => sendAll(port, eventsKey, events.posts, events.sizes));
    const duplicates = await measured('duplicates', () => sendAll(port, eventsKey, events.posts, events.sizes));
    const otlpKey = await keyFor(otlpOrg);
    const spans = await measured('otlp', () => sendAll(port, otlpKey, otlp.posts, otlp.sizes));
    const storage = await storageAlone(db, sample(storageOrg, 13), EVENTS_PER_BATCH, CONCURRENCY);
    const storageOrg1 = await freshOrganization(db, 'Bench storage c=1');
    created.push(storageOrg1);
    const storageSerial = await storageAlone(db, sample(storageOrg1, 14), EVENTS_PER_BATCH, 1);
    const stored = async (organizationId: string) =>
      Number(await db.oneFirst(sql.unsafe`SELECT count(*) AS n FROM usage_events WHERE organization_id = ${organizationId}`));
    for (const [org, expected] of [
      [eventsOrg, ROWS],
      [otlpOrg, ROWS],
      [storageOrg, ROWS],
      [storageOrg1, ROWS],
    ] as const) {
      if ((await stored(org)) !== expected) throw new Error(`expected ${expected} rows stored for ${org}, found ${await stored(org)}`);
    }
    const cliRate = cli.rows / cli.seconds;
    const row = (name: string, run: Run, batch: string) => {
      const rate = run.rows / run.seconds;
      return `| ${name} | ${batch} | ${run.latencies.length || 1} | ${run.rows} | ${Math.round(rate).toLocaleString('en-US')} | ${(rate / cliRate).toFixed(2)}x | ${run.latencies.length ? percentile(run.latencies, 0.5).toFixed(0) : '–'} | ${run.latencies.length ? percentile(run.latencies, 0.99).toFixed(0) : '–'} |`;
    };
    const lines = [
      `Ingestion into a usage table of ${BASE_ROWS.toLocaleString('en-US')}+ rows, ${ROWS.toLocaleString('en-US')} rows per path, c=${CONCURRENCY} over HTTP (shared machine).`,
      '',
      '| path | batch | batches | rows | rows/s | vs CLI import | p50 ms/batch | p99 ms/batch | service CPU ms/batch |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      `${row('CLI import-usage (one transaction)', cli, '5000 lines')} – |`,
      `${row('events API, fresh', fresh, `${EVENTS_PER_BATCH} events`)} ${cpu.fresh!.toFixed(1)} |`,
      `${row('events API, all duplicates', duplicates, `${EVENTS_PER_BATCH} events`)} ${cpu.duplicates!.toFixed(1)} |`,
      `${row('OTLP protobuf, fresh', spans, `${SPANS_PER_BATCH} spans`)} ${cpu.otlp!.toFixed(1)} |`,
      `${row(`floor: the events statement alone (no HTTP, no service), c=${CONCURRENCY}`, storage, `${EVENTS_PER_BATCH} events`)} – |`,
      `${row('floor: the events statement alone, c=1', storageSerial, `${EVENTS_PER_BATCH} events`)} – |`,
      '',
      `Targets: events >= 0.8x CLI (${(fresh.rows / fresh.seconds / cliRate).toFixed(2)}x), OTLP >= 0.5x (${(spans.rows / spans.seconds / cliRate).toFixed(2)}x), ` +
        `duplicates >= 2x fresh (${(duplicates.rows / duplicates.seconds / (fresh.rows / fresh.seconds)).toFixed(2)}x), ` +
        `p99 per batch <= ${P99_TARGET_MS} ms: ${latencyVersusTarget('events', fresh)}, ${latencyVersusTarget('OTLP', spans)}.`,
      '',
      `At c=${CONCURRENCY} with every client waiting for its answer, the mean latency is ${CONCURRENCY} / (batches per second) ` +
        `(Little's law): p99 <= ${P99_TARGET_MS} ms needs more than ${Math.ceil((CONCURRENCY * 1000) / P99_TARGET_MS)} batches a second ` +
        `(events ${(fresh.latencies.length / fresh.seconds).toFixed(1)}/s, OTLP ${(spans.latencies.length / spans.seconds).toFixed(1)}/s here).`,
      `The floor rows: one batch of the events statement alone takes ${percentile(storageSerial.latencies, 0.5).toFixed(0)} ms (p50, c=1); ` +
        `${CONCURRENCY} in flight with the machine's cores spent reach p50 ${percentile(storage.latencies, 0.5).toFixed(0)} / ` +
        `p99 ${percentile(storage.latencies, 0.99).toFixed(0)} ms with no HTTP and no service at all.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stopService(service.child);
    for (const id of created) await db.query(sql.unsafe`DELETE FROM organizations WHERE id = ${id}`);
    await db.end();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
