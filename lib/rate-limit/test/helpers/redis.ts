// Redis connections for tests. Never FLUSH: other suites share this Redis; every test uses its own prefix.
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';

export const REDIS_HOST = '127.0.0.1';
export const REDIS_PORT = 6379;

/** A fresh ioredis connection to the shared test Redis. */
export function connectRedis(options: RedisOptions = {}): Redis {
  return new Redis({ host: REDIS_HOST, port: REDIS_PORT, lazyConnect: false, ...options });
}

/** A key prefix no other test (or agent) uses. */
export function uniquePrefix(label: string): string {
  return `test-rl:${label}:${randomUUID()}:`;
}

/** A real wait: only for polling an external peer (Redis) with a bound, or for yielding to its client. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
