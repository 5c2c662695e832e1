import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import test from 'ava';
import type { Redis } from 'ioredis';
import { createSlidingWindowLimiter } from '../src/limiter.ts';
import { RedisStore } from '../src/redis-store.ts';
import { FakeClock } from './helpers/fake-clock.ts';
import { connectRedis, REDIS_HOST, REDIS_PORT, uniquePrefix } from './helpers/redis.ts';

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
 * (each line is `+<time> [<db> <client address>] "<command>" "<arg>" ...`). MONITOR lines arrive after the
 * replies they describe, so `settled` sends a marker (EXISTS on the key) and waits for MONITOR to show it:
 * Redis reports commands in the order it ran them, so every earlier command has been seen by then.
 */
async function watchKey(redisKey: string): Promise<{ commands: string[]; settled(): Promise<void>; stop(): void }> {
  const socket = createConnection(REDIS_PORT, REDIS_HOST);
  const commands: string[] = [];
  let marker: (() => void) | undefined;
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // Commands a script runs show as `[0 lua]`: only calls made by clients count.
      if (!line.includes(`"${redisKey}"`) || line.includes(' lua] ')) continue;
      const command = (/\] "([^"]+)"/.exec(line)?.[1] ?? '?').toLowerCase();
      if (command === 'exists' && marker !== undefined) marker();
      else commands.push(command);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.write('MONITOR\r\n');
    socket.once('data', () => resolve());
  });
  const settled = async () => {
    const seen = new Promise<void>((resolve) => (marker = resolve));
    await redis.exists(redisKey);
    await seen;
    marker = undefined;
  };
  return { commands, settled, stop: () => socket.destroy() };
}

test('under a flood of one key, Redis receives no call for that key until its oldest entry leaves the window', async (t) => {
  const clock = new FakeClock();
  const store = new RedisStore(redis, { ...opts, clock: clock.now });
  const limiter = createSlidingWindowLimiter({ store, limit: 3, windowMs: 1_200, now: clock.now });
  const key = randomUUID();
  await limiter.check(randomUUID()); // loads the script, so no NOSCRIPT retry shows below
  const watch = await watchKey(store.redisKey(key));
  t.teardown(() => watch.stop());

  const first = clock.now();
  for (let i = 0; i < 3; i++) {
    t.true((await limiter.check(key)).allowed);
    clock.advance(100);
  }
  // The log is full; the first entry leaves at first + 1 200 ms. Until then every answer must be local.
  let flooded = 0;
  while (clock.now() < first + 1_200) {
    const burst = await Promise.all(Array.from({ length: 200 }, () => limiter.check(key)));
    t.true(burst.every((r) => !r.allowed && r.retryAfterMs === first + 1_200 - clock.now()));
    flooded += burst.length;
    clock.advance(100);
  }
  await watch.settled();
  t.deepEqual(watch.commands, ['evalsha', 'evalsha', 'evalsha'], 'only the three allowed checks reached Redis');
  t.true(flooded === 1_800 && store.denyCacheHits === flooded, `${store.denyCacheHits} of ${flooded}`);

  t.true((await limiter.check(key)).allowed, 'at first + 1 200 ms the check goes to Redis, and the first entry has left');
  await watch.settled();
  t.is(watch.commands.length, 4);
});

test('a cached denial gives the same wait and headers as Redis', async (t) => {
  const clock = new FakeClock();
  const cached = new RedisStore(redis, { ...opts, clock: clock.now });
  const uncached = new RedisStore(redis, { ...opts, clock: clock.now, denyCache: false });
  const key = randomUUID();
  const a = createSlidingWindowLimiter({ store: cached, limit: 2, windowMs: '5s', now: clock.now });
  const b = createSlidingWindowLimiter({ store: uncached, limit: 2, windowMs: '5s', now: clock.now });
  await a.check(key);
  await a.check(key);
  clock.advance(100);
  const fromRedis = await b.check(key);
  const fromCache = await a.check(key);
  t.is(cached.denyCacheHits, 1);
  t.like(fromCache, { allowed: false, remaining: 0, limit: 2, retryAfterMs: 4_900 });
  t.deepEqual(fromCache, fromRedis);
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
