import { RateLimiterUnavailableError } from './errors.ts';
import { MemoryStore } from './memory-store.ts';
import { silentLogger } from './silent-logger.ts';
import type { Store } from './store.ts';
import type { Clock, HitResult, Logger, StoreErrorPolicy } from './types.ts';
import { TimeoutQueue } from './timeout-queue.ts';

/** Options of {@link ResilientStore}. */
export interface ResilientStoreOptions {
  /**
   * What a check does when the primary store errors or times out:
   * `'fallback-memory'` counts in an in-process {@link MemoryStore} (per instance, starts empty),
   * `'fail-open'` allows the request unmetered, `'fail-closed'` throws {@link RateLimiterUnavailableError}.
   * Default: `'fallback-memory'`.
   */
  onStoreError?: StoreErrorPolicy;
  /** Per-call timeout for the primary store in milliseconds; a timeout is a store error. Default: `200`. */
  timeoutMs?: number;
  /**
   * After a failure, how long (ms) checks skip the primary and apply the policy directly;
   * then a single check probes the primary again. Keeps a stalled store from costing every request a timeout.
   * Default: `1_000`.
   */
  retryIntervalMs?: number;
  /** Receives one `warn` when an outage starts and one `info` when it ends. Default: silent. */
  logger?: Logger;
  /** Store used by `'fallback-memory'`. Default: a new {@link MemoryStore}. */
  fallback?: Store;
  /** Clock for the retry interval, epoch ms. Default: `Date.now`. */
  now?: Clock;
}

/**
 * Wraps a store with a timeout and a failure policy. Share one instance between routes
 * so an outage is detected, logged and probed once rather than once per route.
 *
 * State machine: `up` --error--> `down` (warn once) --successful probe--> `up` (info once).
 * While `down`, at most one check per `retryIntervalMs` touches the primary.
 */
export class ResilientStore implements Store {
  readonly #primary: Store;
  readonly #policy: StoreErrorPolicy;
  readonly #timeouts: TimeoutQueue;
  readonly #retryIntervalMs: number;
  readonly #logger: Logger;
  readonly #now: Clock;
  #fallback: Store | undefined;
  #downSince: number | undefined;
  #nextProbeAt = 0;

  constructor(primary: Store, options: ResilientStoreOptions = {}) {
    this.#primary = primary;
    this.#policy = options.onStoreError ?? 'fallback-memory';
    this.#timeouts = new TimeoutQueue(options.timeoutMs ?? 200);
    this.#retryIntervalMs = options.retryIntervalMs ?? 1_000;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    this.#fallback = options.fallback;
  }

  /** The failure policy in force. */
  get policy(): StoreErrorPolicy {
    return this.#policy;
  }

  /** True while the primary is considered down. */
  get isDown(): boolean {
    return this.#downSince !== undefined;
  }

  /** The primary's local answer (its deny cache), if it has one. */
  hitLocal(key: string, windowMs: number, limit: number, cost = 1): HitResult | undefined {
    return this.#primary.hitLocal?.(key, windowMs, limit, cost);
  }

  async hit(key: string, windowMs: number, limit: number, nowMs: number, cost = 1): Promise<HitResult> {
    const t = this.#now();
    let failure: unknown;
    if (this.#downSince === undefined || t >= this.#nextProbeAt) {
      // Claim the probe slot before awaiting, so concurrent checks during an outage do not all probe.
      if (this.#downSince !== undefined) this.#nextProbeAt = t + this.#retryIntervalMs;
      try {
        const result = await this.#timeouts.run(this.#primary.hit(key, windowMs, limit, nowMs, cost));
        this.#markUp();
        return result;
      } catch (error) {
        failure = error;
        this.#markDown(error);
      }
    }
    return this.#degrade(key, windowMs, limit, nowMs, cost, failure);
  }

  /**
   * Resets `key` in the fallback (if any) and in the primary; a primary failure rejects (an operator asked
   * for it and must know), whatever the policy.
   */
  async reset(key: string): Promise<void> {
    await this.#fallback?.reset?.(key);
    if (this.#primary.reset === undefined) throw new TypeError('this rate-limit store cannot reset keys');
    await this.#timeouts.run(this.#primary.reset(key));
  }

  async close(): Promise<void> {
    await this.#fallback?.close?.();
  }

  #degrade(key: string, windowMs: number, limit: number, nowMs: number, cost: number, cause: unknown): Promise<HitResult> {
    switch (this.#policy) {
      case 'fallback-memory':
        this.#fallback ??= new MemoryStore();
        return this.#fallback.hit(key, windowMs, limit, nowMs, cost);
      case 'fail-open':
        return Promise.resolve({ allowed: true, count: 0, oldestMs: nowMs, nowMs, degraded: true });
      case 'fail-closed':
        return Promise.reject(new RateLimiterUnavailableError({ cause }));
    }
  }

  #markDown(error: unknown): void {
    const t = this.#now();
    this.#nextProbeAt = t + this.#retryIntervalMs;
    if (this.#downSince !== undefined) return;
    this.#downSince = t;
    this.#logger.warn({ err: error, policy: this.#policy }, 'rate-limit store unavailable; applying failure policy');
  }

  #markUp(): void {
    if (this.#downSince === undefined) return;
    const outageMs = this.#now() - this.#downSince;
    this.#downSince = undefined;
    this.#logger.info({ outageMs }, 'rate-limit store recovered');
  }
}
