// Adapters giving every limiter under test the same shape: check(key) -> { allowed, retryAfterMs }.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createSlidingWindowLimiter, MemoryStore } from '../src/index.ts';
import { RedisStore } from '../src/redis/index.ts';

export interface Verdict {
  readonly allowed: boolean;
  /** The wait the limiter reports for a denial, in ms (0 when allowed). */
  readonly retryAfterMs: number;
}

export interface Peer {
  readonly name: string;
  /** How the peer counts. */
  readonly algorithm: string;
  check(key: string): Promise<Verdict>;
}

export interface PeerConfig {
  readonly limit: number;
  readonly windowMs: number;
  readonly prefix: string;
}

export function ourRedis(redis: Redis, { limit, windowMs, prefix }: PeerConfig): Peer {
  const limiter = createSlidingWindowLimiter({ store: new RedisStore(redis, { prefix }), limit, windowMs });
  return { name: 'RedisStore (ours)', algorithm: 'sliding log, Lua, server clock', check: (key) => limiter.check(key) };
}

export function ourMemory({ limit, windowMs }: PeerConfig): Peer {
  const limiter = createSlidingWindowLimiter({ store: new MemoryStore(), limit, windowMs });
  return { name: 'MemoryStore (ours)', algorithm: 'sliding log', check: (key) => limiter.check(key) };
}

/** koa-ratelimit's Redis driver is async-ratelimiter: a Lua sliding log on client time. We drive that class directly. */
interface AsyncRateLimiter {
  get(options: { id: string }): Promise<{ remaining: number; reset: number; total: number }>;
}
type AsyncRateLimiterClass = new (options: { db: Redis; max: number; duration: number; namespace: string }) => AsyncRateLimiter;

export function koaRatelimitRedis(redis: Redis, { limit, windowMs, prefix }: PeerConfig): Peer {
  const Limiter = createRequire(import.meta.url)('koa-ratelimit/limiter/redis') as AsyncRateLimiterClass;
  const limiter = new Limiter({ db: redis, max: limit, duration: windowMs, namespace: `${prefix}koa` });
  return {
    name: 'koa-ratelimit (redis driver)',
    algorithm: 'sliding log, Lua, client clock',
    async check(key) {
      // Same rule as koa-ratelimit's middleware: allowed when `remaining` (before this call) was positive.
      const { remaining, reset } = await limiter.get({ id: key });
      return remaining > 0 ? { allowed: true, retryAfterMs: 0 } : { allowed: false, retryAfterMs: reset * 1000 - Date.now() };
    },
  };
}

function flexible(name: string, algorithm: string, limiter: RateLimiterRedis | RateLimiterMemory): Peer {
  return {
    name,
    algorithm,
    async check(key) {
      try {
        await limiter.consume(key);
        return { allowed: true, retryAfterMs: 0 };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { allowed: false, retryAfterMs: rejection.msBeforeNext };
        throw rejection;
      }
    },
  };
}

export function flexibleRedis(redis: Redis, { limit, windowMs, prefix }: PeerConfig): Peer {
  const limiter = new RateLimiterRedis({ storeClient: redis, points: limit, duration: windowMs / 1000, keyPrefix: `${prefix}rlf` });
  return flexible('rate-limiter-flexible RateLimiterRedis', 'fixed window counter', limiter);
}

export function flexibleMemory({ limit, windowMs }: PeerConfig): Peer {
  return flexible('rate-limiter-flexible RateLimiterMemory', 'fixed window counter', new RateLimiterMemory({ points: limit, duration: windowMs / 1000 }));
}
