import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from '../config.ts';
import type { ReplicaReads } from '../db/replica.ts';

/** What handlers may use. Built once per app; tests build their own. */
export type AppDeps = {
  db: DatabasePool;
  redis: Redis | undefined;
  config: Config;
  /** The current instant; injected so tests control time. */
  clock: () => Date;
  logger: Logger;
  /** Lifetime of new access tokens in seconds: 15 minutes, shorter only in tests of token expiry. */
  accessTokenTtlSeconds: number;
  /** Set with DATABASE_REPLICA_URL: routes reads that tolerate a second of staleness (see `readStale`). */
  replica?: ReplicaReads;
};
