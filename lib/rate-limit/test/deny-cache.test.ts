import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import test from 'ava';
import type { Redis } from 'ioredis';
import { createSlidingWindowLimiter } from '../src/limiter.ts';
import { RedisStore } from '../src/redis-store.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { connectRedis, REDIS_HOST, REDIS_PORT, sleep, uniquePrefix } from './helpers/redis.ts';

const prefix = uniquePrefix('deny-cache');
const opts = { prefix, timeoutMs: 5_000 };
let redis: Redis;

test.before(() => {
  redis = connectRedis();
});
test.after.always(async () => {
  await redis.quit();
});

/**
 * Every command Redis receives that names `redisKey`, seen through MONITOR on a raw connection of our own
 * (each line is `+<time> [<db> <client address>] "<command>" "<arg>" ...`).
 */
async function watchKey(redisKey: string, port = REDIS_PORT): Promise<{ commands: string[]; stop(): void }> {
  const socket = createConnection(port, REDIS_HOST);
  const commands: string[] = [];
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // Commands a script runs show as `[0 lua]`: only calls made by clients count.
      if (line.includes(`"${redisKey}"`) && !line.includes(' lua] ')) commands.push((/\] "([^"]+)"/.exec(line)?.[1] ?? '?').toLowerCase());
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.write('MONITOR\r\n');
    socket.once('data', () => resolve());
  });
  return { commands, stop: () => socket.destroy() };
}

test('under a flood of one key, Redis receives no call for that key until its oldest entry leaves the window', async (t) => {
  const store = new RedisStore(redis, opts);
  const limiter = createSlidingWindowLimiter({ store, limit: 3, windowMs: 1_200 });
  const key = randomUUID();
  const watch = await watchKey(store.redisKey(key));
  t.teardown(() => watch.stop());

  const started = performance.now();
  t.true((await limiter.check(key)).allowed);
  // Redis stamped the first entry before this moment (same host clock), so it leaves, at T, by firstBy + 1 200 ms.
  const firstBy = Date.now();
  t.true((await limiter.check(key)).allowed);
  const third = performance.now();
  t.true((await limiter.check(key)).allowed);
  // The third check filled the log. The cache trusts it until T minus that call's latency at worst (it errs
  // early, never late), so flood until then: every answer must be local.
  const floodUntil = started + 1_200 - (performance.now() - third) - 30;
  let flooded = 0;
  let lastDenial;
  let lastBurstAt = 0;
  while (performance.now() < floodUntil) {
    lastBurstAt = Date.now();
    const burst = await Promise.all(Array.from({ length: 200 }, () => limiter.check(key)));
    t.true(burst.every((r) => !r.allowed));
    lastDenial = burst.at(-1);
    flooded += burst.length;
    await sleep(10);
  }
  await sleep(50); // MONITOR lines arrive after the replies they describe
  t.deepEqual(watch.commands, ['evalsha', 'evalsha', 'evalsha'], 'only the three allowed checks reached Redis');
  t.true(flooded >= 200 && store.denyCacheHits === flooded, `${store.denyCacheHits} of ${flooded}`);
  const waitBound = firstBy + 1_200 - lastBurstAt + 1;
  t.true(
    lastDenial !== undefined && lastDenial.retryAfterMs > 0 && lastDenial.retryAfterMs <= waitBound,
    `${lastDenial?.retryAfterMs} <= ${waitBound}`,
  );

  await sleep(Math.max(0, firstBy + 1_200 - Date.now()) + 10);
  t.true((await limiter.check(key)).allowed, 'after T the check goes to Redis, and the first entry has left');
  await sleep(50);
  t.is(watch.commands.length, 4);
});

test('a cached denial gives the same wait and headers as Redis, never a longer one', async (t) => {
  const cached = new RedisStore(redis, opts);
  const uncached = new RedisStore(redis, { ...opts, denyCache: false });
  const key = randomUUID();
  const a = createSlidingWindowLimiter({ store: cached, limit: 2, windowMs: '5s' });
  const b = createSlidingWindowLimiter({ store: uncached, limit: 2, windowMs: '5s' });
  await a.check(key);
  await a.check(key);
  await sleep(100);
  const fromRedis = await b.check(key);
  const fromCache = await a.check(key);
  t.is(cached.denyCacheHits, 1);
  t.like(fromCache, { allowed: false, remaining: 0, limit: 2 });
  t.like(fromRedis, { allowed: false, remaining: 0, limit: 2 });
  // Asked one after the other: the cache's wait is at most Redis's (it errs early) and off by the round trip only.
  t.true(
    fromCache.retryAfterMs <= fromRedis.retryAfterMs && fromRedis.retryAfterMs - fromCache.retryAfterMs < 250,
    `cache ${fromCache.retryAfterMs} ms, Redis ${fromRedis.retryAfterMs} ms`,
  );
  t.is(Math.ceil(fromCache.retryAfterMs / 1000), Math.ceil(fromRedis.retryAfterMs / 1000), 'same Retry-After header');
});

test('with an injected clock the cache answers exactly what Redis would, to the millisecond', async (t) => {
  const clock = new FakeClock();
  const cached = new RedisStore(redis, { ...opts, clock: clock.now });
  const uncached = new RedisStore(redis, { ...opts, clock: clock.now, denyCache: false });
  const key = randomUUID();
  const a = createSlidingWindowLimiter({ store: cached, limit: 2, windowMs: 1_000, now: clock.now });
  const b = createSlidingWindowLimiter({ store: uncached, limit: 2, windowMs: 1_000, now: clock.now });
  await a.check(key);
  clock.advance(400);
  await a.check(key);
  for (const step of [0, 1, 300, 298]) {
    clock.advance(step);
    t.deepEqual(await a.check(key), await b.check(key));
  }
  t.is(cached.denyCacheHits, 4);
  clock.advance(1); // +1 000 ms: the first entry leaves
  t.like(await a.check(key), { allowed: true, remaining: 0 });
  t.is(cached.denyCacheHits, 4);
});

test('the deny cache keeps at most maxKeys keys, dropping the least recently used', async (t) => {
  const store = new RedisStore(redis, { ...opts, denyCache: { maxKeys: 2 } });
  const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: '5s' });
  const [k1, k2, k3] = [randomUUID(), randomUUID(), randomUUID()];
  for (const k of [k1, k2]) await limiter.check(k);
  await limiter.check(k1); // k1 is now the most recently used
  await limiter.check(k3);
  t.is(store.denyCacheSize, 2);
  const hits = store.denyCacheHits;
  await limiter.check(k1);
  t.is(store.denyCacheHits, hits + 1, 'k1 stayed');
  await limiter.check(k2);
  t.is(store.denyCacheHits, hits + 1, 'k2 was evicted and asked Redis');
});

test('maxAgeMs bounds how long a cached denial answers without Redis', async (t) => {
  const clock = new FakeClock();
  const store = new RedisStore(redis, { ...opts, clock: clock.now, denyCache: { maxAgeMs: 100 } });
  const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: 10_000, now: clock.now });
  const key = randomUUID();
  await limiter.check(key);
  await limiter.check(key);
  t.is(store.denyCacheHits, 1);
  clock.advance(100);
  t.like(await limiter.check(key), { allowed: false, retryAfterMs: 9_900 });
  t.is(store.denyCacheHits, 1, 'the entry aged out and Redis answered');
});

test('reset clears the deny-cache entry as well as the Redis log', async (t) => {
  const store = new RedisStore(redis, opts);
  const limiter = createSlidingWindowLimiter({ store, limit: 1, windowMs: '1m' });
  const key = randomUUID();
  await limiter.check(key);
  t.false((await limiter.check(key)).allowed);
  t.is(store.denyCacheSize, 1);
  await limiter.reset(key);
  t.is(store.denyCacheSize, 0);
  t.is(await redis.exists(store.redisKey(key)), 0);
  t.true((await limiter.check(key)).allowed);
});
