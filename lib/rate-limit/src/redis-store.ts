import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SLIDING_LOG_SCRIPT } from './lua.ts';
import type { Store } from './store.ts';
import type { HitResult } from './types.ts';
import { TimeoutQueue } from './timeout-queue.ts';

/** The two ioredis calls the store needs; an ioredis `Redis` or `Cluster` fits. */
export type RedisScriptClient = Pick<Redis, 'evalsha' | 'eval'>;

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Namespace put before every key. Default: `"rate-limit:"`. */
  prefix?: string;
  /** Per-call timeout in milliseconds; a slower answer rejects with `StoreTimeoutError`. `0` disables. Default: `200`. */
  timeoutMs?: number;
}

const SCRIPT_SHA = createHash('sha1').update(SLIDING_LOG_SCRIPT).digest('hex');

/**
 * Sliding-log store on Redis (ioredis): one EVALSHA per check, EVAL fallback on NOSCRIPT.
 *
 * Keys look like `rate-limit:{<key>}`: the `{...}` hash tag keeps a key's slot stable on Redis Cluster.
 * Counting uses the Redis server clock; the `nowMs` given by the caller is ignored and the server time is returned.
 * The store never closes the client it was given.
 */
export class RedisStore implements Store {
  readonly #redis: RedisScriptClient;
  readonly #prefix: string;
  readonly #timeouts: TimeoutQueue;
  /** Unique per store instance; with `#seq` it makes every ZSET member unique across processes. */
  readonly #instanceId = randomBytes(6).toString('base64url');
  #seq = 0;

  constructor(redis: RedisScriptClient, options: RedisStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'rate-limit:';
    this.#timeouts = new TimeoutQueue(options.timeoutMs ?? 200);
  }

  /** The Redis key that holds the sliding log of `key`. */
  redisKey(key: string): string {
    return `${this.#prefix}{${key}}`;
  }

  async hit(key: string, windowMs: number, limit: number): Promise<HitResult> {
    const nonce = `${this.#instanceId}:${(this.#seq++).toString(36)}`;
    const reply = await this.#timeouts.run(this.#run(this.redisKey(key), windowMs, limit, nonce));
    return parseReply(reply);
  }

  async #run(redisKey: string, windowMs: number, limit: number, nonce: string): Promise<unknown> {
    try {
      return await this.#redis.evalsha(SCRIPT_SHA, 1, redisKey, windowMs, limit, nonce);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      // EVAL runs the script and caches it, so the next EVALSHA hits.
      return await this.#redis.eval(SLIDING_LOG_SCRIPT, 1, redisKey, windowMs, limit, nonce);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

function parseReply(reply: unknown): HitResult {
  if (!Array.isArray(reply) || reply.length !== 4) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const [allowed, count, oldestUs, nowUs] = reply as [number, number, string | number, number];
  return {
    allowed: allowed === 1,
    count: Number(count),
    oldestMs: Number(oldestUs) / 1000,
    nowMs: Number(nowUs) / 1000,
  };
}
