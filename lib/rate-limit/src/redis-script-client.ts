import type { Redis } from 'ioredis';

/** The two ioredis calls the Redis store needs; an ioredis `Redis` or `Cluster` fits. */
export type RedisScriptClient = Pick<Redis, 'evalsha' | 'eval'>;
