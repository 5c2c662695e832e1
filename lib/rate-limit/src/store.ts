import type { HitResult } from './types.ts';

/**
 * Storage for sliding logs. One method, one round trip, atomic per key.
 *
 * Contract of `hit`:
 * 1. drop entries of `key` whose age is >= `windowMs` (age = now - entry);
 * 2. count the remaining entries;
 * 3. if count + `cost` is at most `limit`, record `cost` entries at "now" and report `allowed: true`;
 *    otherwise record nothing (denials never extend the window) and report `allowed: false`.
 * `cost` is an integer from 0 to `limit` (default 1); 0 records nothing and reports the count (a peek).
 *
 * Concurrent `hit`s on one key must behave as if run one after another:
 * N concurrent hits against limit L allow exactly min(N, L).
 */
export interface Store {
  /**
   * @param key - opaque key (the store may namespace it).
   * @param windowMs - window length in milliseconds (positive integer).
   * @param limit - maximum entries per window (positive integer).
   * @param nowMs - caller's clock in epoch ms. Stores with their own authoritative clock (RedisStore) ignore it.
   * @param cost - entries to record, 0 to `limit`. Default: `1`. A store must honour it: `peek` is a hit of cost 0.
   */
  hit(key: string, windowMs: number, limit: number, nowMs: number, cost?: number): Promise<HitResult>;
  /**
   * Optional: the answer `hit` would give, when the store knows it without I/O (RedisStore's deny cache),
   * else `undefined`. Lets the limiter skip a promise on that path. Must never answer differently from `hit`.
   */
  hitLocal?(key: string, windowMs: number, limit: number, cost?: number): HitResult | undefined;
  /** Forgets every entry of `key` (and anything cached about it in this process). */
  reset?(key: string): Promise<void>;
  /** Releases timers and connections owned by the store (never a connection passed in by the caller). */
  close?(): void | Promise<void>;
}
