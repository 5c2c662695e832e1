import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Redis } from 'ioredis';
import { StoreTimeoutError } from '../src/errors.ts';
import { createSlidingWindowLimiter } from '../src/limiter.ts';
import { RedisStore, type RedisScriptClient } from '../src/redis-store.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { connectRedis, uniquePrefix } from './helpers/redis.ts';
import { runStoreContract } from './helpers/store-contract.ts';
import { startBlackhole } from './helpers/tcp.ts';

const prefix = uniquePrefix('redis-store');
// Generous per-call timeout: these tests are about counting, and the shared Redis can be slow under load.
const opts = { prefix, timeoutMs: 5_000 };
let redis: Redis;
let second: Redis;

test.before(() => {
  redis = connectRedis();
  second = connectRedis();
});
// No cleanup needed: every key this file writes carries a TTL of at most 5 s.
test.after.always(async () => {
  await Promise.all([redis.quit(), second.quit()]);
});

// The script counts with the injected clock (its "now" argument), so time travel is exact and instant; the
// server clock path is covered by the skewed-clock test below.
runStoreContract('RedisStore', async () => {
  const clock = new FakeClock();
  return {
    store: new RedisStore(redis, { ...opts, clock: clock.now }),
    now: clock.now,
    advance: async (ms) => clock.advance(ms),
    toleranceMs: 0,
    close: async () => {},
  };
});

test('RedisStore allows exactly 10 of 200 concurrent checks split over two connections and two limiters', async (t) => {
  const a = createSlidingWindowLimiter({ store: new RedisStore(redis, opts), limit: 10, windowMs: '5s' });
  const b = createSlidingWindowLimiter({ store: new RedisStore(second, opts), limit: 10, windowMs: '5s' });
  const key = randomUUID();
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).check(key)));
  t.is(results.filter((r) => r.allowed).length, 10);
});

test('RedisStore counts on the Redis clock, so an instance with a skewed clock sees the same log', async (t) => {
  const store = new RedisStore(redis, opts);
  const skewMs = 3_600_000;
  const honest = createSlidingWindowLimiter({ store, limit: 2, windowMs: '2s' });
  const ahead = createSlidingWindowLimiter({ store, limit: 2, windowMs: '2s', now: () => Date.now() + skewMs });
  const key = randomUUID();
  t.true((await honest.check(key)).allowed);
  const second = await ahead.check(key);
  t.true(second.allowed);
  t.is(second.remaining, 0, 'the honest entry still counts for the instance one hour ahead');
  const denied = await ahead.check(key);
  t.false(denied.allowed);
  t.true(denied.retryAfterMs > 1_500 && denied.retryAfterMs <= 2_000, `retry after ${denied.retryAfterMs} ms`);
  const resetIn = denied.resetAt - (Date.now() + skewMs);
  t.true(resetIn > 1_000 && resetIn <= 2_000, 'resetAt is expressed in the caller clock');
  t.is(await redis.llen(store.redisKey(key)), 2);
});

test('RedisStore keys carry a {hash tag} and a TTL of at most the window', async (t) => {
  const store = new RedisStore(redis, opts);
  const key = `POST /login:ip:${randomUUID()}`;
  await store.hit(key, 500, 3);
  const redisKey = store.redisKey(key);
  t.is(redisKey, `${prefix}{${key}}`);
  t.is(await redis.exists(redisKey), 1);
  const pttl = await redis.pttl(redisKey);
  t.true(pttl > 0 && pttl <= 500, `PTTL ${pttl}`);
});

test('RedisStore does not re-arm the TTL on a denied check', async (t) => {
  const store = new RedisStore(redis, opts);
  const key = randomUUID();
  await store.hit(key, 60_000, 1);
  // As if most of the window had passed: the key has 700 ms left.
  await redis.pexpire(store.redisKey(key), 700);
  t.false((await store.hit(key, 60_000, 1)).allowed);
  const pttl = await redis.pttl(store.redisKey(key));
  t.true(pttl > 0 && pttl <= 700, `PTTL ${pttl} should be what was left, not a fresh window`);
});

test('RedisStore records every allowed hit as its own entry, even for concurrent hits', async (t) => {
  const store = new RedisStore(redis, opts);
  const key = randomUUID();
  await Promise.all(Array.from({ length: 200 }, () => store.hit(key, 5_000, 1_000)));
  t.is(await redis.llen(store.redisKey(key)), 200);
});

test('RedisStore sends one tick of checks as pipelined script calls of at most 16, in order, exact across calls', async (t) => {
  const checksPerCall: number[] = [];
  const counting: RedisScriptClient = {
    evalsha: ((...args: Parameters<Redis['evalsha']>) => {
      checksPerCall.push(Number(args[1]));
      return redis.evalsha(...args);
    }) as RedisScriptClient['evalsha'],
    eval: ((...args: Parameters<Redis['eval']>) => redis.eval(...args)) as RedisScriptClient['eval'],
  };
  const limiter = createSlidingWindowLimiter({ store: new RedisStore(counting, { ...opts, denyCache: false }), limit: 20, windowMs: '5s' });
  const key = randomUUID();
  const results = await Promise.all(Array.from({ length: 40 }, () => limiter.check(key)));
  t.deepEqual(checksPerCall, [16, 16, 8], 'one key count per check: 40 checks of one tick in three calls');
  t.deepEqual(
    results.map((r) => r.allowed),
    Array.from({ length: 40 }, (_, i) => i < 20),
    'the first 20 in issue order pass, the rest are denied, as if sent one by one',
  );
  t.deepEqual(
    results.slice(0, 20).map((r) => r.remaining),
    Array.from({ length: 20 }, (_, i) => 19 - i),
  );
});

test('RedisStore falls back to EVAL when the server answers NOSCRIPT', async (t) => {
  const calls: string[] = [];
  const client: RedisScriptClient = {
    evalsha: (async () => {
      calls.push('evalsha');
      throw new Error('NOSCRIPT No matching script. Please use EVAL.');
    }) as RedisScriptClient['evalsha'],
    eval: ((...args: Parameters<Redis['eval']>) => {
      calls.push('eval');
      return redis.eval(...args);
    }) as RedisScriptClient['eval'],
  };
  const result = await new RedisStore(client, opts).hit(randomUUID(), 1_000, 1);
  t.true(result.allowed);
  t.deepEqual(calls, ['evalsha', 'eval']);
});

test('RedisStore converts a sorted-set log left by version 0.1 in place, keeping its entries and TTL', async (t) => {
  const store = new RedisStore(redis, opts);
  const key = randomUUID();
  const redisKey = store.redisKey(key);
  const [seconds, micros] = await redis.time();
  const nowUs = Number(seconds) * 1_000_000 + Number(micros);
  await redis.zadd(redisKey, nowUs - 2_000_000, 'a', nowUs - 500_000, 'b', nowUs - 100_000, 'c');
  await redis.pexpire(redisKey, 4_000);
  const hit = await store.hit(key, 1_000, 3);
  t.like(hit, { allowed: true, count: 3 }, 'the entry older than the window left, the two others count');
  t.is(hit.oldestMs, (nowUs - 500_000) / 1000);
  t.is(await redis.type(redisKey), 'list');
  t.false((await store.hit(key, 1_000, 3)).allowed);
});

test('RedisStore surfaces script errors other than NOSCRIPT', async (t) => {
  const store = new RedisStore(redis, opts);
  const key = randomUUID();
  await redis.set(store.redisKey(key), 'not a list', 'PX', 5_000);
  await t.throwsAsync(store.hit(key, 1_000, 1), { message: /WRONGTYPE/ });
});

test('RedisStore rejects with StoreTimeoutError when Redis stalls past timeoutMs', async (t) => {
  const blackhole = await startBlackhole();
  const stalled = connectRedis({ port: blackhole.port, maxRetriesPerRequest: 0 });
  t.teardown(async () => {
    stalled.disconnect();
    await blackhole.close();
  });
  const error = await t.throwsAsync(new RedisStore(stalled, { prefix, timeoutMs: 100 }).hit('k', 1_000, 1));
  t.true(error instanceof StoreTimeoutError);
});
