import anyTest from 'ava';
import { randomBytes, randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStore } from '@agents/rate-limit/redis';
import request from 'supertest';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

const NOW = new Date('2026-11-22T09:00:00.000Z');
/** A documentation-range client address per test, so runs never share a bucket in Redis. */
const clientIp = () => `198.51.100.${randomInt(1, 255)}, 203.0.113.${randomInt(1, 255)}`.split(', ')[1]!;

const badLogin = { email: 'owner@demo.test', password: 'wrong-password' };

test('allowed responses carry the IETF RateLimit headers and the eleventh login in 15 minutes gets the documented 429', async (t) => {
  const server = t.context.t.rebuild({ clock: () => NOW }).callback();
  const ip = clientIp();
  for (let i = 0; i < 10; i++) {
    const response = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', ip).send(badLogin);
    t.is(response.status, 401);
    t.is(response.headers['ratelimit-policy'], '"user-login";q=10;w=900');
    t.is(response.headers['ratelimit'], `"user-login";r=${9 - i};t=900`);
  }
  const denied = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', ip).send(badLogin);
  t.is(denied.status, 429);
  t.deepEqual(denied.body, {
    statusCode: 429,
    errorCode: 'CORE.RATE_LIMIT_EXCEEDED',
    message: {
      en: 'Too many requests. Try again in 900 seconds.',
      es: 'Demasiadas solicitudes. Inténtalo de nuevo en 900 segundos.',
    },
    metadata: { retryAfterSeconds: 900 },
  });
  t.is(denied.headers['retry-after'], '900');
});

test('the retry delay counts down from the oldest request in the window', async (t) => {
  let now = NOW.getTime();
  const server = t.context.t.rebuild({ clock: () => new Date(now) }).callback();
  const ip = clientIp();
  for (let i = 0; i < 10; i++) {
    await request(server).post('/api/identity/auth/refresh').set('x-forwarded-for', ip).send({ refreshToken: 'x' });
    now += 1_000;
  }
  // The oldest entry is 10 s old in a 60 s window: 50 s to wait.
  const denied = await request(server).post('/api/identity/auth/refresh').set('x-forwarded-for', ip).send({ refreshToken: 'x' });
  t.is(denied.status, 429);
  t.is(denied.body.metadata.retryAfterSeconds, 50);
  t.is(denied.headers['retry-after'], '50');
  now += 50_000;
  const allowed = await request(server).post('/api/identity/auth/refresh').set('x-forwarded-for', ip).send({ refreshToken: 'x' });
  t.is(allowed.status, 401);
});

test('the limit answers 429 before validation would answer 400', async (t) => {
  const server = t.context.t.rebuild().callback();
  const ip = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const response = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', ip).send({ enabledTools: [] });
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(400), 429]);
});

test('the limit answers 429 before authentication would answer 401', async (t) => {
  const server = t.context.t.rebuild().callback();
  const ip = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const response = await request(server).post('/api/identity/auth/refresh').set('x-forwarded-for', ip).send({ refreshToken: 'stolen' });
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(401), 429]);
});

test('rotating a spoofed left-hand X-Forwarded-For entry does not escape the limit', async (t) => {
  const server = t.context.t.rebuild().callback();
  const proxyHop = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const spoofed = `10.${i}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
    const response = await request(server)
      .post('/api/identity/auth/user/login')
      .set('x-forwarded-for', `${spoofed}, ${proxyHop}`)
      .send(badLogin);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(401), 429]);
  // The address the trusted hop reports is what counts: another client has its own window.
  const other = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', clientIp()).send(badLogin);
  t.is(other.status, 401);
});

test('routes without a declaration are not limited', async (t) => {
  const server = t.context.t.rebuild().callback();
  for (let i = 0; i < 30; i++) {
    const response = await request(server).get('/api/health');
    t.is(response.status, 200);
    t.is(response.headers['ratelimit'], undefined);
  }
});

test('with Redis configured, instances share one window kept in Redis under a hash-tagged key', async (t) => {
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const first = new Redis(redisUrl);
  const second = new Redis(redisUrl);
  // A prefix of this run's own, so runs sharing the Redis server (and its 15-minute windows) never meet.
  const prefix = `rate-limit-test-${randomBytes(6).toString('hex')}:`;
  t.teardown(async () => {
    const left = await first.keys(`${prefix}*`);
    if (left.length > 0) await first.del(...left);
    first.disconnect();
    second.disconnect();
  });
  // Each instance counts in Redis through a store with no memory fallback and no timeout: under a
  // loaded machine a slow answer then waits instead of being counted in a per-instance window.
  const instance = (redis: Redis) => {
    return t.context.t.rebuild({ redis, rateLimitStore: new RedisStore(redis, { prefix, timeoutMs: 0 }) }).callback();
  };
  const instanceA = instance(first);
  const instanceB = instance(second);
  const ip = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const server = i % 2 === 0 ? instanceA : instanceB;
    const response = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', ip).send(badLogin);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(401), 429]);
  const keys = await first.keys(`${prefix}{rl:POST /api/identity/auth/user/login:ip:${ip}}`);
  t.is(keys.length, 1);
  const ttl = await first.pttl(keys[0]!);
  t.true(ttl > 0 && ttl <= 15 * 60 * 1000);
});
