import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import type { Config } from '../config.ts';
import type { ReplicaReads } from '../db/replica.ts';

/** A one-shot timer the app arms (a turn's deadline); injected so tests fire it instead of waiting. */
export type Timers = {
  /** Runs `run` once after `ms`; the timer never keeps the process alive. */
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
};

/** Node's timers, unreferenced. */
export const systemTimers: Timers = {
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** What handlers may use. Built once per app; tests build their own. */
export type AppDeps = {
  db: DatabasePool;
  redis: Redis | undefined;
  config: Config;
  /** The current instant; injected so tests control time. */
  clock: () => Date;
  /** The timers of deadlines that tests fire themselves (`systemTimers` outside tests). */
  timers: Timers;
  logger: Logger;
  /** Lifetime of new access tokens in seconds: 15 minutes, shorter only in tests of token expiry. */
  accessTokenTtlSeconds: number;
  /** Set with DATABASE_REPLICA_URL: routes reads that tolerate a second of staleness (see `readStale`). */
  replica?: ReplicaReads;
};
