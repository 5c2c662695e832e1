// RedisStore on a real three-master Redis Cluster through ioredis `Cluster`
// (TEST_REDIS_CLUSTER=host:port,... when one runs, as in CI; else started here, see helpers/cluster.ts).
import { randomUUID } from 'node:crypto';
import test from 'ava';
import fc from 'fast-check';
import { createSlidingWindowLimiter } from '../src/limiter.ts';
import { RedisStore } from '../src/redis-store.ts';
import { testCluster, type TestCluster } from './helpers/cluster.ts';
import { firstDisagreement } from './helpers/model-run.ts';
import { scenario } from './helpers/model.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { uniquePrefix } from './helpers/redis.ts';
import { runStoreContract } from './helpers/store-contract.ts';

const prefix = uniquePrefix('cluster');
const opts = { prefix, timeoutMs: 5_000 };
let env: TestCluster;

test.before(async () => {
  env = await testCluster();
});
test.after.always(async () => {
  await env?.close();
});

runStoreContract('RedisStore on a Redis Cluster', async () => {
  const clock = new FakeClock();
  return {
    store: new RedisStore(env.cluster, { ...opts, clock: clock.now }),
    now: clock.now,
    advance: async (ms) => clock.advance(ms),
    toleranceMs: 0,
    close: async () => {},
  };
});

test('on a cluster, 200 concurrent checks over two connections allow exactly the limit', async (t) => {
  const other = await env.connect();
  const a = createSlidingWindowLimiter({ store: new RedisStore(env.cluster, opts), limit: 10, windowMs: '5s' });
  const b = createSlidingWindowLimiter({ store: new RedisStore(other, opts), limit: 10, windowMs: '5s' });
  const key = randomUUID();
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).check(key)));
  t.is(results.filter((r) => r.allowed).length, 10);
});

test('each limiter key lives in one Redis key on one master, and keys spread over all three masters', async (t) => {
  const store = new RedisStore(env.cluster, opts);
  const keys = Array.from({ length: 30 }, () => `POST /api/login:ip:${randomUUID()}`);
  for (const key of keys) await store.hit(key, 5_000, 3, 0, 2);
  const masters = env.cluster.nodes('master');
  t.is(masters.length, 3);
  // Each master lists the keys it holds (KEYS with this file's unique prefix; the cluster is a test cluster).
  const held = await Promise.all(masters.map((node) => node.keys(`${prefix}*`)));
  const holders = new Set<number>();
  for (const key of keys) {
    const found = held.flatMap((list, index) => (list.includes(store.redisKey(key)) ? [index] : []));
    t.is(found.length, 1, `${key} is on exactly one master`);
    holders.add(found[0] as number);
  }
  t.is(holders.size, 3);
});

test('on a cluster, RedisStore gives the reference model answers (random checks, costs, peeks, resets, clock steps)', async (t) => {
  const stores = { 'RedisStore on a cluster': (clock: () => number) => new RedisStore(env.cluster, { ...opts, clock }) };
  const report = await fc.check(
    fc.asyncProperty(scenario, async (s) => (await firstDisagreement(s, stores)) === undefined),
    { numRuns: 60 },
  );
  const counterexample = report.counterexample?.[0];
  t.is(counterexample === undefined ? undefined : await firstDisagreement(counterexample, stores), undefined);
  t.false(report.failed, `seed ${report.seed}`);
});

test('on a cluster, the deny cache answers a full key and reset reaches the right master', async (t) => {
  const store = new RedisStore(env.cluster, opts);
  const limiter = createSlidingWindowLimiter({ store, limit: 2, windowMs: '1m' });
  const key = randomUUID();
  await limiter.check(key);
  await limiter.check(key);
  t.like(await limiter.check(key), { allowed: false, remaining: 0 });
  t.is(store.denyCacheHits, 1);
  await limiter.reset(key);
  t.is(await env.cluster.exists(store.redisKey(key)), 0);
  t.like(await limiter.check(key), { allowed: true, remaining: 1 });
});
