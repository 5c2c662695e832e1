// Real network faults between the limiter and Redis: refused connections, a stalled server, an outage and recovery.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import request from 'supertest';
import { rateLimit } from '../src/koa/index.ts';
import { RedisStore } from '../src/redis-store.ts';
import { ResilientStore } from '../src/resilient-store.ts';
import type { StoreErrorPolicy } from '../src/types.ts';
import { captureLogger } from './helpers/capture-logger.ts';
import { connectRedis, REDIS_HOST, REDIS_PORT, sleep, uniquePrefix } from './helpers/redis.ts';
import { startBlackhole, ToggleProxy } from './helpers/tcp.ts';

const prefix = uniquePrefix('faults');
const TIMEOUT_MS = 100;
const POLICIES: StoreErrorPolicy[] = ['fallback-memory', 'fail-open', 'fail-closed'];

let blackhole: Awaited<ReturnType<typeof startBlackhole>>;
const clients: Redis[] = [];
test.before(async () => {
  blackhole = await startBlackhole();
});
test.after.always(async () => {
  for (const client of clients) client.disconnect();
  await blackhole.close();
});

function refusedRedis(): Redis {
  const client = connectRedis({ port: 1, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 1_000 });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

function stalledRedis(): Redis {
  const client = connectRedis({ port: blackhole.port, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

/** A Koa app limited by `store` under `policy`; answers 200 "ok" when allowed. */
function limitedApp(store: RedisStore, policy: StoreErrorPolicy) {
  const app = new Koa();
  app.use(rateLimit({ windowMs: '1m', limit: 5, identifierType: 'ip', store, onStoreError: policy, timeoutMs: TIMEOUT_MS }));
  app.use((ctx) => {
    ctx.body = 'ok';
  });
  return request(app.callback());
}

const EXPECTED_STATUS: Record<StoreErrorPolicy, number> = { 'fallback-memory': 200, 'fail-open': 200, 'fail-closed': 503 };

for (const [label, makeClient] of [
  ['refused connection', refusedRedis],
  ['stalled Redis', stalledRedis],
] as const) {
  for (const policy of POLICIES) {
    test(`${policy} applies within the timeout when Redis is a ${label}`, async (t) => {
      const agent = limitedApp(new RedisStore(makeClient(), { prefix, timeoutMs: 0 }), policy);
      const res = await agent.get('/');
      t.is(res.status, EXPECTED_STATUS[policy]);
      if (policy === 'fail-closed') t.deepEqual(res.body, { statusCode: 503, message: 'Rate limiter unavailable' });
      if (policy === 'fail-open') t.is(res.headers['ratelimit'], undefined, 'no made-up quota when unmetered');
      if (policy === 'fallback-memory') t.is(res.headers['ratelimit'], '"default";r=4;t=60');
    });
  }
}

test('fallback-memory still enforces the limit per instance while Redis is stalled', async (t) => {
  const agent = limitedApp(new RedisStore(stalledRedis(), { prefix }), 'fallback-memory');
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await agent.get('/')).status);
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
});

test('fallback-memory logs the outage once, and counts in Redis again after it returns', async (t) => {
  const direct = connectRedis();
  clients.push(direct);
  const proxy = new ToggleProxy(REDIS_HOST, REDIS_PORT);
  await proxy.up();
  t.teardown(() => proxy.down());
  const viaProxy = connectRedis({ port: proxy.port, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 20 });
  viaProxy.on('error', () => {});
  clients.push(viaProxy);
  await new Promise((resolve) => viaProxy.once('ready', resolve));

  const redisStore = new RedisStore(viaProxy, { prefix });
  const logger = captureLogger();
  const store = new ResilientStore(redisStore, { timeoutMs: TIMEOUT_MS, retryIntervalMs: 30, logger });
  const key = randomUUID();
  const entries = () => direct.llen(redisStore.redisKey(key));

  await store.hit(key, 60_000, 100, Date.now());
  t.is(await entries(), 1);

  await proxy.down();
  for (let i = 0; i < 10; i++) {
    t.true((await store.hit(key, 60_000, 100, Date.now())).allowed);
  }
  t.is(await entries(), 1, 'outage hits went to memory');
  t.true(store.isDown);

  await proxy.up();
  const deadline = Date.now() + 3_000;
  while (store.isDown && Date.now() < deadline) {
    // Waiting on Redis, an external peer, to be reachable again: polled, bounded at 3 s.
    await sleep(40);
    await store.hit(key, 60_000, 100, Date.now());
  }
  t.false(store.isDown, 'recovered');
  const before = await entries();
  await store.hit(key, 60_000, 100, Date.now());
  t.is(await entries(), before + 1, 'checks go to Redis again');
  t.deepEqual(
    logger.lines.map((l) => `${l.level}: ${l.message}`),
    ['warn: rate-limit store unavailable; applying failure policy', 'info: rate-limit store recovered'],
  );
});
