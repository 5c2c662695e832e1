// Redis memory per tracked key: each Redis store fills keys to a limit on the benchmark's own server, and the
// growth of `used_memory` (keys, values, the key space and expiry dictionaries) is divided by the keys held.
import type { Redis } from 'ioredis';
import type { Peer, PeerConfig } from './peers.ts';

export interface KeyMemory {
  /**
   * `used_memory` growth per key, bytes: everything Redis allocated for the key. `undefined` when the growth
   * was under 1 MB in all: then client buffers and allocator noise weigh as much as the keys.
   */
  readonly bytesPerKey: number | undefined;
  /** Mean `MEMORY USAGE` (all samples) of the keys, bytes: the key and its value, without dictionary entries. */
  readonly memoryUsage: number;
}

/** Keys per measurement: fewer at high limits, so every row records 100 000 to 200 000 checks. */
export const keysAt = (limit: number) => Math.min(10_000, Math.round(200_000 / limit));

const usedMemory = async (redis: Redis) => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);

/** A key like the ones the Koa middleware writes for a login route (endpoint and an IPv4 address). */
export const trackedKey = (i: number) => `rl:POST /api/identity/auth/user/login:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * Fills `keysAt(limit)` keys with `limit` checks each through `peer` (a window long enough that nothing
 * expires meanwhile), measures, then removes every key under `config.prefix` from `admin`'s server.
 */
export async function keyMemory(admin: Redis, peer: Peer, config: PeerConfig): Promise<KeyMemory> {
  const keys = keysAt(config.limit);
  const before = await usedMemory(admin);
  for (let k = 0; k < keys; k += 100) {
    const group = Array.from({ length: Math.min(100, keys - k) }, (_, j) => trackedKey(k + j));
    for (let n = 0; n < config.limit; n++) await Promise.all(group.map((key) => peer.check(key)));
  }
  const after = await usedMemory(admin);
  const names = await scan(admin, `${config.prefix}*`);
  const sample = names.slice(0, 200);
  const usages = await Promise.all(sample.map(async (name) => Number(await admin.memory('USAGE', name, 'SAMPLES', 0))));
  for (let i = 0; i < names.length; i += 500) await admin.del(...names.slice(i, i + 500)); // DEL frees now (UNLINK would free during the next row)
  const grown = after - before;
  return {
    bytesPerKey: grown >= 1_000_000 ? grown / keys : undefined,
    memoryUsage: usages.reduce((a, b) => a + b, 0) / Math.max(1, usages.length),
  };
}

async function scan(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    found.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return found;
}
