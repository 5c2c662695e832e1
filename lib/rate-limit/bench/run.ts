// Benchmark of @agents/rate-limit against koa-ratelimit and rate-limiter-flexible, plus correctness.
// Run: npm run bench -w lib/rate-limit   (or from the root: npm run bench:rate-limit). Loopback only; ~5 minutes.
// It starts its own redis-server and three-master Redis Cluster (see servers.ts) and stops them at the end.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { koaOverhead } from './koa-overhead.ts';
import {
  flexibleMemory,
  flexibleRedis,
  koaRatelimitRedis,
  ourMemory,
  ourRedis,
  type Peer,
  type PeerConfig,
  type RedisClient,
} from './peers.ts';
import { redisCost, type RedisCost } from './redis-cost.ts';
import { keyMemory, keysAt, type KeyMemory } from './redis-memory.ts';
import { interleaved, type Contender, type RoundsResult } from './rounds.ts';
import { startBenchServers, type BenchServers } from './servers.ts';

const prefix = `bench-rl:${randomUUID()}:`;
const KEYS = 10_000;
const FLOODED = 1_000;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 8);
/** BENCH_ONLY=allowed,flood,cluster,memory,keys,correctness,koa runs those sections only (all by default). */
const ONLY = process.env['BENCH_ONLY']?.split(',');
const runs = (section: string) => ONLY === undefined || ONLY.includes(section);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const x = (n: number) => `${fmt(n, 2)}x`;
const load = () =>
  os
    .loadavg()
    .map((l) => fmt(l, 1))
    .join(' / ');
const ratioCell = (r: RoundsResult, i: number) => (i === 0 ? '—' : `${x(r.ratio.median)} (${x(r.ratio.q25)}-${x(r.ratio.q75)})`);
const verdict = (value: number, target: number) => `${value >= target ? 'met' : 'MISSED'} (>= ${fmt(target, 1)}x)`;

/** 200 concurrent checks on a fresh key against limit 10 (window 60 s): allowed count and the wait reported on a denial. */
async function correctness(peer: Peer): Promise<{ allowed: number; retryAfterSec: number }> {
  const key = randomUUID();
  const verdicts = await Promise.all(Array.from({ length: 200 }, () => peer.check(key)));
  const denied = verdicts.find((v) => !v.allowed);
  return { allowed: verdicts.filter((v) => v.allowed).length, retryAfterSec: (denied?.retryAfterMs ?? Number.NaN) / 1000 };
}

const allowedOp = (peer: Peer): Contender => ({ name: peer.name, op: (i) => peer.check(`k${(i + KEYS) % KEYS}`) });

/** 95% of checks on keys already over their limit, 5% on fresh keys (allowed). */
function floodOp(peer: Peer): Contender {
  let fresh = 0;
  return { name: peer.name, op: (i) => (i % 20 === 0 ? peer.check(`n${fresh++}`) : peer.check(`f${i % FLOODED}`)) };
}

async function prefill(peer: Peer, limit: number): Promise<void> {
  for (let k = 0; k < FLOODED; k += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => Promise.all(Array.from({ length: limit }, () => peer.check(`f${k + j}`)))));
  }
}

/** The allowed-path table; `targets`: print the issue's targets (they are set for the lone server). */
async function allowedPath(client: () => Promise<RedisClient>, where: string, admin: readonly Redis[], targets: boolean): Promise<void> {
  const config: PeerConfig = { limit: 1_000, windowMs: 60_000, prefix: `${prefix}${where}:` };
  const peers = [ourRedis(await client(), config), koaRatelimitRedis(await client(), config), flexibleRedis(await client(), config)];
  const contenders = peers.map(allowedOp);
  const c64 = await interleaved(contenders, { rounds: ROUNDS, ms: 1_000, concurrency: 64 });
  const c1 = await interleaved(contenders, { rounds: 3, ms: 500, concurrency: 1 });
  const costs: RedisCost[] = [];
  for (const c of contenders) costs.push(await redisCost(admin, c.op, 30_000));
  console.log(
    '| store | algorithm | c=1 checks/s | c=64 checks/s | c=64 p99 ms | Redis µs per check: commandstats / process CPU | client CPU µs per check | Redis commands per check | ours vs peer @c=64: median (IQR) | target |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---|');
  c64.forEach((r, i) => {
    const peer = peers[i] as Peer;
    const cost = costs[i] as RedisCost;
    const target = !targets ? '' : i === 1 ? verdict(r.ratio.median, 1.1) : i === 2 ? verdict(r.ratio.median, 1.0) : '';
    console.log(
      `| ${r.name} | ${peer.algorithm} | ${fmt(c1[i]?.opsPerSec ?? 0)} | ${fmt(r.opsPerSec)} | ${fmt(r.p99Ms, 2)} | ` +
        `${fmt(cost.usPerCheck, 2)} / ${fmt(cost.cpuUsPerCheck, 1)} | ${fmt(cost.clientCpuUsPerCheck, 1)} | ${fmt(cost.callsPerCheck, 1)} | ${ratioCell(r, i)} | ${target} |`,
    );
  });
}

async function flood(servers: BenchServers): Promise<void> {
  const config: PeerConfig = { limit: 10, windowMs: 300_000, prefix: `${prefix}flood:` };
  const ours = ourRedis(servers.connect(), config);
  const peers = [
    ours,
    koaRatelimitRedis(servers.connect(), config),
    flexibleRedis(servers.connect(), config),
    flexibleRedis(servers.connect(), { ...config, prefix: `${config.prefix}mem:` }, true),
    ourRedis(servers.connect(), { ...config, prefix: `${config.prefix}off:` }, false),
  ];
  for (const peer of peers) await prefill(peer, config.limit);
  const contenders = peers.map(floodOp);
  const results = await interleaved(contenders, { rounds: ROUNDS, ms: 1_000, concurrency: 64 });
  const costs: RedisCost[] = [];
  for (const c of contenders) costs.push(await redisCost([servers.admin.single], c.op, 30_000));
  console.log(
    '| store | c=64 checks/s | Redis calls per check | Redis µs per check: commandstats / process CPU | client CPU µs per check | ours vs peer: median (IQR) | target |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|');
  results.forEach((r, i) => {
    const cost = costs[i] as RedisCost;
    const target = i === 1 || i === 2 ? verdict(r.ratio.median, 5) : i === 3 ? verdict(r.ratio.median, 1.0) : '';
    console.log(
      `| ${r.name} | ${fmt(r.opsPerSec)} | ${fmt(cost.clientCallsPerCheck, 3)} | ${fmt(cost.usPerCheck, 2)} / ${fmt(cost.cpuUsPerCheck, 1)} | ` +
        `${fmt(cost.clientCpuUsPerCheck, 1)} | ${ratioCell(r, i)} | ${target} |`,
    );
  });
  console.log(
    `\nour deny cache answered ${fmt(ours.store.denyCacheHits)} checks without Redis in this section (${fmt(ours.store.denyCacheSize)} keys held)`,
  );
}

async function memory(): Promise<void> {
  const config: PeerConfig = { limit: 1_000, windowMs: 60_000, prefix };
  const peers = [ourMemory(config), flexibleMemory(config)];
  const results = await interleaved(
    peers.map((peer) => ({ name: peer.name, op: (i: number) => peer.check(`k${i % 100_000}`) })),
    { rounds: 6, ms: 1_000, concurrency: 0 },
  );
  console.log('| store | checks/s (median of 6 rounds) | ours vs peer: median (IQR) | target |');
  console.log('|---|---:|---:|---|');
  results.forEach((r, i) =>
    console.log(`| ${r.name} | ${fmt(r.opsPerSec)} | ${ratioCell(r, i)} | ${i === 1 ? verdict(r.ratio.median, 1.2) : ''} |`),
  );
}

/** Limits of the thirteen endpoints the service interface limits (3 per minute to 10 per 15 minutes). */
const SEED_LIMITS = [3, 5, 5, 10, 10, 3, 5, 5, 10, 10, 3, 10, 3];
const MEMORY_LIMITS = [3, 5, 10, 100, 1_000];

async function keysTable(servers: BenchServers): Promise<void> {
  const peers: Array<(config: PeerConfig) => Peer> = [
    (config) => ourRedis(servers.connect(), config),
    (config) => koaRatelimitRedis(servers.connect(), config),
    (config) => flexibleRedis(servers.connect(), config),
  ];
  console.log(
    `| store | ${MEMORY_LIMITS.map((l) => `limit ${fmt(l)} (${fmt(keysAt(l))} keys)`).join(' | ')} | keys per GiB, thirteen seed limits |`,
  );
  console.log(`|---|${MEMORY_LIMITS.map(() => '---:|').join('')}---:|`);
  for (const make of peers) {
    const measured = new Map<number, KeyMemory>();
    let name = '';
    for (const limit of MEMORY_LIMITS) {
      const config: PeerConfig = { limit, windowMs: 900_000, prefix: `${prefix}keys:${randomUUID()}:` };
      const peer = make(config);
      name = peer.name;
      measured.set(limit, await keyMemory(servers.admin.single, peer, config));
    }
    // As many keys of each seed limit, every one full (the most a key of that limit can take).
    // Growth where it was measurable, else MEMORY USAGE (which leaves out the key space's dictionary entries).
    const bytes = (l: number) => (measured.get(l) as KeyMemory).bytesPerKey ?? (measured.get(l) as KeyMemory).memoryUsage;
    const seedBytes = SEED_LIMITS.reduce((sum, l) => sum + bytes(l), 0) / SEED_LIMITS.length;
    const cells = MEMORY_LIMITS.map((l) => {
      const m = measured.get(l) as KeyMemory;
      return `${m.bytesPerKey === undefined ? '< 1 MB in all' : fmt(m.bytesPerKey)} / ${fmt(m.memoryUsage)}`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} | ${fmt(2 ** 30 / seedBytes)} |`);
  }
}

async function correctnessTable(servers: BenchServers): Promise<void> {
  const config: PeerConfig = { limit: 10, windowMs: 60_000, prefix: `${prefix}correct:` };
  const cluster = await servers.connectCluster();
  const rows: Array<[string, Peer]> = [
    ['Redis', ourRedis(servers.connect(), config)],
    ['Redis', ourRedis(servers.connect(), config, false)],
    ['Redis', koaRatelimitRedis(servers.connect(), config)],
    ['Redis', flexibleRedis(servers.connect(), config)],
    ['Redis', flexibleRedis(servers.connect(), config, true)],
    ['Cluster (3 masters)', ourRedis(cluster, config)],
    ['Cluster (3 masters)', koaRatelimitRedis(cluster, config)],
    ['Cluster (3 masters)', flexibleRedis(cluster, config)],
    ['in-process', ourMemory(config)],
    ['in-process', flexibleMemory(config)],
  ];
  console.log('| limiter | where | allowed (expect 10) | reported retry-after s (expect ~60) |');
  console.log('|---|---|---:|---:|');
  for (const [where, peer] of rows) {
    try {
      const { allowed, retryAfterSec } = await correctness(peer);
      console.log(`| ${peer.name} | ${where} | ${allowed} | ${fmt(retryAfterSec, 2)} |`);
    } catch (error) {
      console.log(`| ${peer.name} | ${where} | error: ${(error as Error).message.slice(0, 60)} | |`);
    }
  }
}

async function koa(): Promise<void> {
  const result = await koaOverhead([
    { label: 'A/A: the same route served twice (noise floor)', baseline: 'route', variant: 'route-copy' },
    { label: 'route + the two RateLimit headers as constants', baseline: 'route', variant: 'route-headers' },
    { label: 'route + clock, store hit and the two headers, hand-inlined (the floor)', baseline: 'route', variant: 'route-floor' },
    { label: '**route + rateLimit(MemoryStore)** (per-route, as documented)', baseline: 'route', variant: 'route-limited' },
    { label: 'app.use(rateLimit(MemoryStore)), no router', baseline: 'app', variant: 'app-limited' },
  ]);
  const pct = (fraction: number) => `${fmt(fraction * 100, 1)}%`;
  console.log(
    '| variant vs its bare baseline | baseline req/s | variant req/s | cost: median of pairs | interquartile range | cost over all slices |',
  );
  console.log('|---|---:|---:|---:|---|---:|');
  for (const r of result.rows) {
    console.log(
      `| ${r.label} | ${fmt(r.baselineRps)} | ${fmt(r.variantRps)} | ${pct(r.cost.median)} | ${pct(r.cost.q25)} to ${pct(r.cost.q75)} | ${pct(r.pooledCost)} |`,
    );
  }
  const perRoute = result.rows.find((r) => r.variant === 'route-limited');
  const floor = result.rows.find((r) => r.variant === 'route-floor');
  if (perRoute !== undefined && floor !== undefined)
    console.log(
      `\nper-route limiter cost: ${pct(perRoute.cost.median)}, target <= 10%: ${perRoute.cost.median <= 0.1 ? 'met' : 'MISSED'}; ` +
        `the hand-inlined floor: ${pct(floor.cost.median)}`,
    );
  console.log(
    `server ${result.pinned ? 'and load generator on a CPU each' : 'and load generator unpinned (no taskset, or one CPU)'}; ` +
      `busy: server ${pct(result.serverBusy)}, load generator ${pct(result.loadBusy)} of one core` +
      (result.stolen === undefined ? '' : `; CPU time taken by the hypervisor (steal): ${pct(result.stolen)}`),
  );
  if (result.serverBusy + (result.stolen ?? 0) < 0.9)
    console.log('warning: the server was not saturated, so requests/s understate its cost per request');
}

async function main(servers: BenchServers): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, Redis ${servers.version} (private server and cluster)`,
  );
  console.log(`load average at start (1 / 5 / 15 min): ${load()}\n`);
  if (runs('allowed')) {
    console.log(
      `## Allowed path, one Redis (10 000 keys round-robin, limit 1 000 / 60 s, one ioredis connection each, ${ROUNDS} interleaved rounds of 1 s)\n`,
    );
    await allowedPath(async () => servers.connect(), 'single', [servers.admin.single], true);
  }
  if (runs('flood')) {
    console.log(
      `\n## Flood: 95% of checks on 1 000 keys already over their limit, 5% on fresh keys (limit 10 / 5 min, c=64, ${ROUNDS} rounds)\n`,
    );
    await flood(servers);
  }
  if (runs('cluster')) {
    console.log(`\n## Allowed path, Redis Cluster of three masters (ioredis Cluster, same workload, ${ROUNDS} rounds)\n`);
    await allowedPath(() => servers.connectCluster(), 'cluster', servers.admin.cluster, false);
  }
  if (runs('memory')) {
    console.log('\n## In-process stores (100 000 keys round-robin, limit 1 000 / 60 s, awaited one by one)\n');
    await memory();
  }
  if (runs('keys')) {
    console.log(
      '\n## Redis memory per tracked key, full (holding `limit` entries), bytes: `used_memory` growth per key / mean `MEMORY USAGE`\n',
    );
    await keysTable(servers);
  }
  if (runs('correctness')) {
    console.log('\n## Correctness: 200 concurrent checks, one fresh key, limit 10 / 60 s\n');
    await correctnessTable(servers);
  }
  if (runs('koa')) {
    console.log(
      '\n## Koa middleware cost (16 keep-alive connections, loopback; one server process, 300 ABBA pairs of 50 ms slices per row)\n',
    );
    await koa();
  }
  console.log(`\nload average at end (1 / 5 / 15 min): ${load()}`);
}

const servers = await startBenchServers();
try {
  await main(servers);
} finally {
  await servers.stop();
}
