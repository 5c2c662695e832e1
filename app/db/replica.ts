import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import type { Logger } from 'pino';
import { z } from 'zod';
import { hasSqlState, isConnectionLoss } from './connection-loss.ts';

/** How long a replica health reading is trusted before the next read asks again, ms. */
const CHECK_INTERVAL_MS = 1_000;

/**
 * The standby's own view of its lag. While the WAL receiver streams and everything received is replayed, it
 * is up to date (0), however old its last replayed commit. Otherwise the lag is the age of the last replayed
 * commit (PostgreSQL docs, "Hot Standby" / pg_last_xact_replay_timestamp): a paused replay or a lost stream
 * makes it grow. `receiver` is null when the role may not read pg_stat_wal_receiver or no receiver runs.
 */
const StandbyHealth = z
  .object({
    in_recovery: z.boolean(),
    receiver: z.string().nullable(),
    lag_ms: z.number().nullable(),
  })
  .strict();

const standbyHealth = sql.type(StandbyHealth)`
  SELECT pg_is_in_recovery() AS in_recovery,
         (SELECT status FROM pg_stat_wal_receiver) AS receiver,
         CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
              THEN 0
              ELSE floor(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8
         END AS lag_ms`;

export type ReplicaOptions = {
  primary: DatabasePool;
  replica: DatabasePool;
  /** Reads go to the primary while the replica lags by more than this, ms. */
  maxLagMs: number;
  logger: Logger;
  /** Monotonic clock, ms; injected by tests. Default: `performance.now`. */
  now?: () => number;
};

/**
 * Where reads that tolerate a second of staleness go (docs/architecture.md, "Read replica"): the streaming
 * replica while it is up, streaming and within `maxLagMs`, else the primary. Writes never come here.
 *
 * Invariants: a health reading is at most CHECK_INTERVAL_MS old when a read is routed, and concurrent reads
 * share one check; a read that loses its replica connection is run again on the primary (it changed nothing),
 * so a replica going away costs a request time, never an error; every switch is logged once (warn on the way
 * to the primary, info on the way back), not once per request.
 */
export class ReplicaReads {
  readonly #primary: DatabasePool;
  readonly #replica: DatabasePool;
  readonly #maxLagMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  #healthy = false;
  #reported: 'replica' | 'primary' | undefined;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #checking: Promise<void> | undefined;

  constructor(options: ReplicaOptions) {
    this.#primary = options.primary;
    this.#replica = options.replica;
    this.#maxLagMs = options.maxLagMs;
    this.#logger = options.logger;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Whether the last health reading sent reads to the replica. */
  get onReplica(): boolean {
    return this.#healthy;
  }

  /** Runs a read-only `query` on the replica when it is fit to answer, else on the primary. */
  async read<T>(query: (db: CommonQueryMethods) => Promise<T>): Promise<T> {
    if (this.#now() - this.#checkedAt >= CHECK_INTERVAL_MS) await (this.#checking ??= this.#check());
    if (!this.#healthy) return query(this.#primary);
    try {
      return await query(this.#replica);
    } catch (error) {
      // SQLSTATE 40001 on a standby: "canceling statement due to conflict with recovery" (replay needed its rows).
      if (hasSqlState(error, '40001')) return query(this.#primary); // the standby cancelled it; not a health issue
      if (!isConnectionLoss(error)) throw error;
      this.#route('primary', { err: error }, 'replica unreachable');
      return query(this.#primary);
    }
  }

  async #check(): Promise<void> {
    try {
      const health = await this.#replica.one(standbyHealth);
      if (!health.in_recovery) this.#route('primary', {}, 'replica is not a standby (promoted?)');
      else if (health.receiver !== null && health.receiver !== 'streaming')
        this.#route('primary', { receiver: health.receiver }, 'replica is not streaming from the primary');
      else if (health.lag_ms === null || health.lag_ms > this.#maxLagMs)
        this.#route('primary', { lagMs: health.lag_ms, maxLagMs: this.#maxLagMs }, 'replica lags too far behind');
      else this.#route('replica', { lagMs: health.lag_ms }, 'replica serves reads');
    } catch (error) {
      this.#route('primary', { err: error }, 'replica unreachable');
    } finally {
      this.#checkedAt = this.#now();
      this.#checking = undefined;
    }
  }

  #route(to: 'replica' | 'primary', context: Record<string, unknown>, reason: string): void {
    this.#healthy = to === 'replica';
    if (this.#reported === to) return;
    const first = this.#reported === undefined;
    this.#reported = to;
    if (to === 'primary') this.#logger.warn(context, `read replica not used: ${reason}; reading from the primary`);
    else if (!first) this.#logger.info(context, 'read replica back: reads go to it again');
  }
}

/**
 * Runs a read-only query that tolerates a second of staleness on the replica when one is configured and fit,
 * else on the primary. Only for the routes listed in docs/architecture.md ("Read replica").
 */
export function readStale<T>(
  deps: { db: DatabasePool; replica?: ReplicaReads },
  query: (db: CommonQueryMethods) => Promise<T>,
): Promise<T> {
  return deps.replica === undefined ? query(deps.db) : deps.replica.read(query);
}
