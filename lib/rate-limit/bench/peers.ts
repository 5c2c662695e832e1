// Adapters giving every limiter under test the same shape: check(key) -> { allowed, retryAfterMs }.
import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
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

/** A standalone Redis or a Cluster client: every Redis peer here takes either. */
export type RedisClient = Redis | Cluster;

/** Ours with its defaults (deny cache on); `denyCache: false` for the row that shows the script alone. */
export function ourRedis(redis: RedisClient, { limit, windowMs, prefix }: PeerConfig, denyCache = true): Peer & { store: RedisStore } {
  // The peers have no per-call timeout; on a loaded shared host 200 ms can pass, so ours gets 5 s here.
  const store = new RedisStore(redis, denyCache ? { prefix, timeoutMs: 5_000 } : { prefix, timeoutMs: 5_000, denyCache: false });
  const limiter = createSlidingWindowLimiter({ store, limit, windowMs });
  return {
    name: denyCache ? 'RedisStore (ours)' : 'RedisStore (ours), deny cache off',
    algorithm: 'sliding log, Lua, server clock',
    store,
    check: (key) => limiter.check(key),
  };
}

export function ourMemory({ limit, windowMs }: PeerConfig): Peer {
  const limiter = createSlidingWindowLimiter({ store: new MemoryStore(), limit, windowMs });
  return { name: 'MemoryStore (ours)', algorithm: 'sliding log', check: (key) => limiter.check(key) };
}

/** koa-ratelimit's Redis driver is async-ratelimiter: a Lua sliding log on client time. We drive that class directly. */
interface AsyncRateLimiter {
  get(options: { id: string }): Promise<{ remaining: number; reset: number; total: number }>;
}
type AsyncRateLimiterClass = new (options: { db: RedisClient; max: number; duration: number; namespace: string }) => AsyncRateLimiter;

export function koaRatelimitRedis(redis: RedisClient, { limit, windowMs, prefix }: PeerConfig): Peer {
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

/** rate-limiter-flexible's Redis limiter; `inMemoryBlock` turns on `inMemoryBlockOnConsumed: limit` (its local denial cache). */
export function flexibleRedis(redis: RedisClient, { limit, windowMs, prefix }: PeerConfig, inMemoryBlock = false): Peer {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    points: limit,
    duration: windowMs / 1000,
    keyPrefix: `${prefix}rlf`,
    ...(inMemoryBlock ? { inMemoryBlockOnConsumed: limit } : {}),
  });
  const name = inMemoryBlock ? 'rate-limiter-flexible RateLimiterRedis, inMemoryBlockOnConsumed' : 'rate-limiter-flexible RateLimiterRedis';
  return flexible(name, 'fixed window counter', limiter);
}

export function flexibleMemory({ limit, windowMs }: PeerConfig): Peer {
  return flexible(
    'rate-limiter-flexible RateLimiterMemory',
    'fixed window counter',
    new RateLimiterMemory({ points: limit, duration: windowMs / 1000 }),
  );
}
