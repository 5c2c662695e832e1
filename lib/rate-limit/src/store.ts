import type { HitResult } from './types.ts';

/**
 * Storage for sliding logs. One method, one round trip, atomic per key.
 *
 * Contract of `hit`:
 * 1. drop entries of `key` whose age is >= `windowMs` (age = now - entry);
 * 2. count the remaining entries;
 * 3. if the count is below `limit`, record one entry at "now" and report `allowed: true`;
 *    otherwise record nothing (denials never extend the window) and report `allowed: false`.
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
   */
  hit(key: string, windowMs: number, limit: number, nowMs: number): Promise<HitResult>;
  /** Releases timers and connections owned by the store (never a connection passed in by the caller). */
  close?(): void | Promise<void>;
}
