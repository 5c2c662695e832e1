import { DenyCache } from './deny-cache.ts';
import { ScriptBatcher } from './script-batcher.ts';
import type { Store } from './store.ts';
import type { RedisScriptClient } from './redis-script-client.ts';
import type { Clock, HitResult } from './types.ts';

export type { RedisScriptClient } from './redis-script-client.ts';
import { TimeoutQueue } from './timeout-queue.ts';

/** Options of the deny cache of {@link RedisStore}. */
export interface DenyCacheOptions {
  /** Most keys remembered; the least recently used is dropped beyond. Default: `10_000` (~1.5 MB). */
  maxKeys?: number;
  /**
   * Longest time (ms) an entry answers without asking Redis, even when the wait is longer. Bounds how long
   * a `reset` made by another process (the CLI, another app instance) goes unseen here. Default: `Infinity`
   * (until the oldest entry leaves the window: exact, nothing else can free a slot earlier).
   */
  maxAgeMs?: number;
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** Namespace put before every key. Default: `"rate-limit:"`. */
  prefix?: string;
  /** Per-call timeout in milliseconds; a slower answer rejects with `StoreTimeoutError`. `0` disables. Default: `200`. */
  timeoutMs?: number;
  /**
   * Answers checks of keys known to be full locally, without a Redis call, until the oldest entry leaves the
   * window (see README, "Deny cache"). `false` turns it off. Default: on, `{ maxKeys: 10_000 }`.
   */
  denyCache?: DenyCacheOptions | false;
  /**
   * For deterministic tests only: the script counts with this clock (epoch ms) instead of the Redis server's
   * `TIME`. In production, leave it unset so that app instances with skewed clocks share one clock.
   * Default: the Redis server clock.
   */
  clock?: Clock;
}

const RESET_SCRIPT = "return redis.call('DEL', KEYS[1])";

/**
 * Sliding-log store on Redis (ioredis): checks issued in the same tick go out as one EVALSHA (on a Cluster, each
 * check alone), EVAL fallback on NOSCRIPT; keys already known to be full are answered by the deny cache.
 *
 * Keys look like `rate-limit:{<key>}`: the `{...}` hash tag holds the whole limiter key, so a key's slot is
 * stable on Redis Cluster and a check never crosses slots. Counting uses the Redis server clock; the `nowMs`
 * given by the caller is ignored and the server time is returned. The store never closes the client it was given.
 */
export class RedisStore implements Store {
  readonly #redis: RedisScriptClient;
  readonly #prefix: string;
  readonly #timeouts: TimeoutQueue;
  readonly #cache: DenyCache | undefined;
  readonly #maxAgeMs: number;
  readonly #batcher: ScriptBatcher;
  /** Local clock of the deny cache: the injected clock, else a monotonic one. */
  readonly #local: Clock;

  constructor(redis: RedisScriptClient, options: RedisStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'rate-limit:';
    this.#timeouts = new TimeoutQueue(options.timeoutMs ?? 200);
    const deny = options.denyCache ?? {};
    this.#cache = deny === false ? undefined : new DenyCache(deny.maxKeys ?? 10_000);
    this.#maxAgeMs = deny === false ? 0 : (deny.maxAgeMs ?? Number.POSITIVE_INFINITY);
    this.#batcher = new ScriptBatcher(redis, this.#timeouts, options.clock);
    this.#local = options.clock ?? (() => performance.now());
  }

  /** The Redis key that holds the sliding log of `key` (a LIST of µs timestamps, oldest first). */
  redisKey(key: string): string {
    return `${this.#prefix}{${key}}`;
  }

  /** Checks answered by the deny cache without a Redis call, since the store was created. */
  get denyCacheHits(): number {
    return this.#cache?.hits ?? 0;
  }

  /** Keys currently in the deny cache. */
  get denyCacheSize(): number {
    return this.#cache?.size ?? 0;
  }

  /**
   * The answer of the deny cache, without I/O: a key known to be full until later than now, checked at a cost
   * of 0 or 1 under the same limit and window. `undefined` when Redis must be asked.
   */
  hitLocal(key: string, windowMs: number, limit: number, cost = 1): HitResult | undefined {
    const cache = this.#cache;
    if (cache === undefined || cost > 1) return undefined;
    const localNow = this.#local();
    const full = cache.get(key, localNow, limit, windowMs);
    if (full === undefined) return undefined;
    // Nothing leaves the log before `untilLocal`: Redis would give this very answer.
    return { allowed: cost === 0, count: full.count, oldestMs: full.oldestMs, nowMs: localNow + full.offsetMs };
  }

  hit(key: string, windowMs: number, limit: number, _nowMs?: number, cost = 1): Promise<HitResult> {
    const local = this.hitLocal(key, windowMs, limit, cost);
    if (local !== undefined) return Promise.resolve(local);
    const cache = this.#cache;
    const redisKey = this.redisKey(key);
    const sentAt = this.#local();
    const onReply = (reply: unknown): HitResult => {
      const hit = parseReply(reply, windowMs);
      if (cache !== undefined && hit.count >= limit) this.#remember(cache, key, hit, sentAt, windowMs, limit);
      return hit;
    };
    return this.#batcher.run(redisKey, windowMs, limit, cost).then(onReply);
  }

  /** Forgets every entry of `key`, in Redis and in this store's deny cache. */
  async reset(key: string): Promise<void> {
    this.#cache?.delete(key);
    await this.#timeouts.run(this.#redis.eval(RESET_SCRIPT, 1, this.redisKey(key)));
    this.#cache?.delete(key);
  }

  /** Empties the deny cache (the Redis data stays). */
  close(): void {
    this.#cache?.clear();
  }

  /**
   * The store clock ran ahead of `sentAt` by at least `hit.nowMs - sentAt` (the script ran after the send),
   * so `sentAt + wait` is at or before the moment the oldest entry leaves: the cache never outlives the truth.
   */
  #remember(cache: DenyCache, key: string, hit: HitResult, sentAt: number, windowMs: number, limit: number): void {
    const waitMs = hit.oldestMs + windowMs - hit.nowMs;
    if (!(waitMs > 0)) return;
    cache.set(key, {
      untilLocal: sentAt + Math.min(waitMs, this.#maxAgeMs),
      offsetMs: hit.nowMs - sentAt,
      count: hit.count,
      oldestMs: hit.oldestMs,
      limit,
      windowMs,
    });
  }
}

function parseReply(reply: unknown, windowMs: number): HitResult {
  if (!Array.isArray(reply) || reply.length < 4 || reply.length > 5) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const [allowed, count, oldestUs, nowUs, fitsUs] = reply as [number, number, number, number, number | string | undefined];
  const hit = { allowed: allowed === 1, count, oldestMs: oldestUs / 1000, nowMs: nowUs / 1000 };
  return fitsUs === undefined ? hit : { ...hit, retryAtMs: Number(fitsUs) / 1000 + windowMs };
}
