// Benchmark of @agents/rate-limit against koa-ratelimit and rate-limiter-flexible on one Redis, plus correctness.
// Run: npm run bench -w lib/rate-limit   (or from the root: npm run bench:rate-limit). Loopback only; ~1-2 minutes.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Redis } from 'ioredis';
import { koaOverhead } from './koa-overhead.ts';
import { measure, measureThroughput, type Measurement } from './measure.ts';
import { flexibleMemory, flexibleRedis, koaRatelimitRedis, ourMemory, ourRedis, type Peer, type PeerConfig } from './peers.ts';

const REDIS = { host: process.env['REDIS_HOST'] ?? '127.0.0.1', port: Number(process.env['REDIS_PORT'] ?? 6379) };
const prefix = `bench-rl:${randomUUID()}:`;
const KEYS = 10_000;
const speedConfig: PeerConfig = { limit: 1_000, windowMs: 60_000, prefix };
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const clients: Redis[] = [];
const connect = (): Redis => {
  const client = new Redis(REDIS);
  clients.push(client);
  return client;
};

/** 200 concurrent checks on a fresh key against limit 10 (window 60 s): allowed count and the wait reported on a denial. */
async function correctness(peer: Peer): Promise<{ allowed: number; retryAfterSec: number }> {
  const key = randomUUID();
  const verdicts = await Promise.all(Array.from({ length: 200 }, () => peer.check(key)));
  const denied = verdicts.find((v) => !v.allowed);
  return { allowed: verdicts.filter((v) => v.allowed).length, retryAfterSec: (denied?.retryAfterMs ?? Number.NaN) / 1000 };
}

async function main(): Promise<void> {
  const redisVersion = /redis_version:(\S+)/.exec(await connect().info('server'))?.[1] ?? '?';
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, Redis ${redisVersion}\n`);

  const redisPeers = [
    ['RedisStore (ours)', (c: PeerConfig) => ourRedis(connect(), c)],
    ['koa-ratelimit', (c: PeerConfig) => koaRatelimitRedis(connect(), c)],
    ['rate-limiter-flexible', (c: PeerConfig) => flexibleRedis(connect(), c)],
  ] as const;

  console.log('## Redis stores (10 000 keys round-robin, limit 1 000 / 60 s, one ioredis connection each, best of 2 rounds)\n');
  // Every peer is warmed up first (JIT, connection, script cache), then measured in two rounds of alternating order;
  // the best round counts, which damps noise from other processes on a shared machine.
  const peers = redisPeers.map(([, make]) => make(speedConfig));
  const ops = peers.map((peer) => (i: number) => peer.check(`k${(i + KEYS) % KEYS}`));
  for (const op of ops) await measure(op, { concurrency: 64, maxOps: 5_000, maxMs: 2_000, warmupOps: 0 });
  const best = peers.map(() => ({ c1: undefined as Measurement | undefined, c64: undefined as Measurement | undefined }));
  const better = (a: Measurement | undefined, b: Measurement) => (a === undefined || b.opsPerSec > a.opsPerSec ? b : a);
  for (const order of [[0, 1, 2], [2, 1, 0]]) {
    for (const p of order) {
      const op = ops[p] as (i: number) => Promise<unknown>;
      const slot = best[p] as (typeof best)[number];
      slot.c1 = better(slot.c1, await measure(op, { concurrency: 1, maxOps: 20_000, maxMs: 2_000 }));
      slot.c64 = better(slot.c64, await measure(op, { concurrency: 64, maxOps: 200_000, maxMs: 3_000 }));
    }
  }
  const rows = peers.map((peer, p) => ({ name: peer.name, algorithm: peer.algorithm, c1: best[p]?.c1 as Measurement, c64: best[p]?.c64 as Measurement }));
  const ours = rows[0];
  if (ours === undefined) throw new Error('no rows');
  console.log('| store | algorithm | c=1 checks/s | c=1 p99 ms | c=64 checks/s | c=64 p99 ms | ours vs peer @c=64 |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = r === ours ? '1.00x' : `${fmt(ours.c64.opsPerSec / r.c64.opsPerSec, 2)}x`;
    console.log(`| ${r.name} | ${r.algorithm} | ${fmt(r.c1.opsPerSec)} | ${fmt(r.c1.p99Ms, 2)} | ${fmt(r.c64.opsPerSec)} | ${fmt(r.c64.p99Ms, 2)} | ${ratio} |`);
  }

  console.log('\n## In-process stores (100 000 keys round-robin, limit 1 000 / 60 s, awaited one by one)\n');
  const memoryRows: Array<[string, number]> = [];
  for (const peer of [ourMemory(speedConfig), flexibleMemory(speedConfig)]) {
    const opsPerSec = await measureThroughput((i) => peer.check(`k${i % 100_000}`), { maxOps: 5_000_000, maxMs: 3_000 });
    memoryRows.push([peer.name, opsPerSec]);
  }
  const oursMemory = memoryRows[0]?.[1] ?? 1;
  console.log('| store | checks/s | ours vs peer |');
  console.log('|---|---:|---:|');
  for (const [name, opsPerSec] of memoryRows) console.log(`| ${name} | ${fmt(opsPerSec)} | ${fmt(oursMemory / opsPerSec, 2)}x |`);

  console.log('\n## Correctness on the same Redis: 200 concurrent checks, one fresh key, limit 10 / 60 s\n');
  const correctnessConfig: PeerConfig = { limit: 10, windowMs: 60_000, prefix };
  console.log('| limiter | allowed (expect 10) | reported retry-after s (expect ~60) |');
  console.log('|---|---:|---:|');
  for (const peer of [
    ...redisPeers.map(([, make]) => make(correctnessConfig)),
    ourMemory(correctnessConfig),
    flexibleMemory(correctnessConfig),
  ]) {
    const { allowed, retryAfterSec } = await correctness(peer);
    console.log(`| ${peer.name} | ${allowed} | ${fmt(retryAfterSec, 2)} |`);
  }

  console.log('\n## Koa middleware cost (autocannon, 16 connections, loopback; one server process, 12 ABBA pairs x 1 s per row)\n');
  const koa = await koaOverhead([
    { label: 'A/A: the same route served twice (noise floor)', baseline: 'route', variant: 'route-copy' },
    { label: 'route + the two RateLimit headers as constants', baseline: 'route', variant: 'route-headers' },
    { label: '**route + rateLimit(MemoryStore)** (per-route, as documented)', baseline: 'route', variant: 'route-limited' },
    { label: 'app.use(rateLimit(MemoryStore)), no router', baseline: 'app', variant: 'app-limited' },
  ]);
  const pct = (fraction: number) => `${fmt(fraction * 100, 1)}%`;
  console.log('| variant vs its bare baseline | baseline req/s | variant req/s | cost: median | interquartile range |');
  console.log('|---|---:|---:|---:|---|');
  for (const r of koa.rows) {
    console.log(`| ${r.label} | ${fmt(r.baselineRps)} | ${fmt(r.variantRps)} | ${pct(r.cost.median)} | ${pct(r.cost.q25)} to ${pct(r.cost.q75)} |`);
  }
  console.log(
    `\nserver ${koa.pinned ? 'and load generator on a CPU each' : 'and load generator unpinned (no taskset, or one CPU)'}; ` +
      `busy: server ${pct(koa.serverBusy)}, load generator ${pct(koa.loadBusy)} of one core`,
  );
  if (koa.serverBusy < 0.9) console.log('warning: the server was not saturated, so requests/s understate its cost per request');
}

try {
  await main();
} finally {
  const cleaner = clients[0];
  if (cleaner !== undefined) {
    // Our own keys only: SCAN by the per-run prefix (never FLUSH a shared Redis).
    for await (const keys of cleaner.scanStream({ match: `${prefix}*`, count: 1_000 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await cleaner.unlink(...keys);
    }
  }
  for (const client of clients) client.disconnect();
}
