// RedisStore batches a tick's checks per cluster master (ADR 0150): fewer calls, the same answers, and a slot map
// gone stale (a failover, a resharding) costs a resend, never a lost or double-counted check.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Cluster } from 'ioredis';
import { RedisStore } from '../src/redis-store.ts';
import { testCluster, type TestCluster } from './helpers/cluster.ts';
import { uniquePrefix } from './helpers/redis.ts';

const prefix = uniquePrefix('cluster-batch');
let env: TestCluster;

test.before(async () => {
  env = await testCluster();
});
test.after.always(async () => {
  await env?.close();
});

/** The real cluster client, with its script calls counted and, optionally, a slot map of our choosing. */
function counted(cluster: Cluster, slots: () => ReadonlyArray<readonly string[] | undefined> = () => cluster.slots) {
  /** Per script call: the checks it carried (a node batch: 4 arguments per check after sha, 1, key). */
  const calls: number[] = [];
  const client = new Proxy(cluster, {
    get(target, property) {
      if (property === 'slots') return slots();
      if (property === 'evalsha')
        return (...args: Parameters<Cluster['evalsha']>) => {
          calls.push(args.length === 6 ? 1 : (args.length - 3) / 4);
          return target.evalsha(...args);
        };
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { client, calls };
}

const keysFor = (n: number) => Array.from({ length: n }, (_, i) => `POST /api/login:ip:${randomUUID()}:${i}`);

test('checks issued together on a cluster leave as at most one script call per master and 16 checks', async (t) => {
  const { client, calls } = counted(env.cluster);
  const store = new RedisStore(client, { prefix, timeoutMs: 5_000 });
  const keys = keysFor(96);
  const results = await Promise.all(keys.map((key) => store.hit(key, 60_000, 2, 0)));
  t.true(results.every((r) => r.allowed && r.count === 1));
  // 96 keys over 3 masters: ~32 each, in calls of at most 16; never one call per check.
  t.true(calls.length <= 12, `${calls.length} calls`);
  t.true(calls.length >= 6, `${calls.length} calls`);
  const lengths = await Promise.all(keys.map((key) => env.cluster.llen(store.redisKey(key))));
  t.deepEqual(new Set(lengths), new Set([1]));
});

test('checks batched on a cluster answer as if sent one by one: 40 checks of one key at limit 10 allow exactly 10', async (t) => {
  const store = new RedisStore(env.cluster, { prefix, timeoutMs: 5_000, denyCache: false });
  const key = randomUUID();
  const others = keysFor(30);
  const results = await Promise.all([
    ...Array.from({ length: 40 }, () => store.hit(key, 60_000, 10, 0)),
    ...others.map((k) => store.hit(k, 60_000, 10, 0)),
  ]);
  t.is(results.slice(0, 40).filter((r) => r.allowed).length, 10);
  t.deepEqual(
    results.slice(0, 40).map((r) => r.count),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...Array.from({ length: 30 }, () => 10)],
  );
  t.true(results.slice(40).every((r) => r.allowed && r.count === 1));
});

test('with a stale slot map (every slot on one master) each check is still counted exactly once, on its owner', async (t) => {
  const master = env.cluster.slots[0]?.[0] as string;
  const everywhere = Array.from({ length: 16_384 }, () => [master]);
  const { client, calls } = counted(env.cluster, () => everywhere);
  const store = new RedisStore(client, { prefix, timeoutMs: 5_000 });
  const keys = keysFor(45);
  for (let round = 1; round <= 2; round++) {
    const results = await Promise.all(keys.map((key) => store.hit(key, 60_000, 5, 0)));
    t.true(results.every((r) => r.allowed && r.count === round));
  }
  const lengths = await Promise.all(keys.map((key) => env.cluster.llen(store.redisKey(key))));
  t.deepEqual(new Set(lengths), new Set([2]));
  // Keys of the two other masters came back unrun and went again alone: more calls than batches alone would take.
  t.true(calls.filter((n) => n === 1).length >= 20, `${calls.length} calls`);
  t.true(calls.some((n) => n > 1));
});
