import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { Redis } from 'ioredis';
import { createSlidingWindowLimiter } from '@agents/rate-limit';
import { RedisStore } from '@agents/rate-limit/redis';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A benchmarking-range address per test, so runs never share a bucket in the shared Redis. */
const clientIp = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;
/** The test's own stores wait for Redis however loaded the machine is: no 200 ms timeout to lose a race against. */
const NO_TIMEOUT = { timeoutMs: 0 };

function cli(args: string[], env: Record<string, string | undefined>) {
  const baseEnv = { ...process.env, NODE_ENV: 'test', DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-')), REDIS_URL: undefined };
  return promisify(execFile)(process.execPath, ['--conditions=agents-source', 'bin/cli.ts', ...args], { env: { ...baseEnv, ...env } });
}

test('`cli rate-limit reset` clears a locked-out client of a route, so its next request is allowed', async (t) => {
  const redis = new Redis(redisUrl);
  t.teardown(() => redis.disconnect());
  const store = new RedisStore(redis, NO_TIMEOUT);
  const login = createSlidingWindowLimiter({ store, limit: 10, windowMs: '15m' });
  const key = `rl:POST /api/identity/auth/user/login:ip:${clientIp()}`;
  for (let i = 0; i < 10; i++) await login.check(key);
  t.like(await login.peek(key), { allowed: false, remaining: 0 });

  const ip = key.slice(key.lastIndexOf(':') + 1);
  const { stderr } = await cli(['rate-limit', 'reset', '--route', 'user-login', '--identifier', ip], { REDIS_URL: redisUrl });
  t.regex(stderr, /reset POST \/api\/identity\/auth\/user\/login for ip:/);
  t.is(await redis.exists(store.redisKey(key)), 0);
  t.like(await createSlidingWindowLimiter({ store: new RedisStore(redis, NO_TIMEOUT), limit: 10, windowMs: '15m' }).peek(key), {
    allowed: true,
    remaining: 10,
  });
});

test('`cli rate-limit reset` resets a user id on a route limited by user', async (t) => {
  const redis = new Redis(redisUrl);
  t.teardown(() => redis.disconnect());
  const store = new RedisStore(redis, NO_TIMEOUT);
  const userId = `user-${randomInt(1e9)}`;
  const key = `rl:POST /api/identity/auth/user/change-password:user:${userId}`;
  await createSlidingWindowLimiter({ store, limit: 3, windowMs: '15m' }).check(key, { cost: 3 });
  await cli(['rate-limit', 'reset', '--route', 'POST /api/identity/auth/user/change-password', '--identifier', userId], {
    REDIS_URL: redisUrl,
  });
  t.is(await redis.exists(store.redisKey(key)), 0);
});

test('`cli rate-limit reset` refuses an unknown route, a non-IP on an IP-limited route, and a missing REDIS_URL, saying why', async (t) => {
  const unknown = await t.throwsAsync(
    cli(['rate-limit', 'reset', '--route', 'GET /api/nope', '--identifier', '203.0.113.9'], { REDIS_URL: redisUrl }),
  );
  t.regex((unknown as unknown as { stderr: string }).stderr, /no rate limit declared for "GET \/api\/nope"; known: .*\buser-check-email\b/);
  const notIp = await t.throwsAsync(
    cli(['rate-limit', 'reset', '--route', 'user-login', '--identifier', 'alice'], { REDIS_URL: redisUrl }),
  );
  t.regex((notIp as unknown as { stderr: string }).stderr, /limited by IP address, and "alice" is not one/);
  const memory = await t.throwsAsync(cli(['rate-limit', 'reset', '--route', 'user-login', '--identifier', '203.0.113.9'], {}));
  t.regex(
    (memory as unknown as { stderr: string }).stderr,
    /REDIS_URL is not set: without Redis the counters live in the memory of each server process/,
  );
});
