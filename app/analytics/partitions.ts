import type { AppDeps } from '../core/deps.ts';
import { createUsagePartition, dropUsagePartitionsBefore, tryUsagePartitionLock } from '../../sql/usage-partitions.ts';

export type PartitionDeps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'logger'>;

/** Months created ahead of the current UTC month, so inserts never wait on DDL at a month's turn. */
export const PARTITION_MONTHS_AHEAD = 3;
/** How often a server process runs the maintenance (it also runs once at start). */
export const PARTITION_MAINTENANCE_INTERVAL_MS = 3_600_000;

/** The first instant of the UTC month `offset` months from the one containing `at`. */
export const utcMonthStart = (at: Date, offset = 0) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));

/**
 * With `USAGE_RETENTION_MONTHS` = n: raw rows before the first day of the UTC month n months
 * before the current one are dropped, so the current month and at least n whole months before
 * it stay. Undefined without retention.
 */
export function retentionCutoff(now: Date, months: number | undefined): Date | undefined {
  return months === undefined ? undefined : utcMonthStart(now, -months);
}

/**
 * Creates the partitions of this UTC month and the next PARTITION_MONTHS_AHEAD, then, with
 * retention, drops the raw months before the cutoff. One run at a time across processes: the
 * run holds an advisory lock in its transaction and a process that finds it taken skips its
 * turn (undefined). Returns what it did.
 */
export async function maintainUsagePartitions(deps: PartitionDeps): Promise<{ created: number; dropped: number } | undefined> {
  const now = deps.clock();
  const cutoff = retentionCutoff(now, deps.config.usageRetentionMonths);
  return deps.db.transaction(async (tx) => {
    if (!(await tryUsagePartitionLock(tx))) return undefined;
    let created = 0;
    for (let offset = 0; offset <= PARTITION_MONTHS_AHEAD; offset++) {
      if (await createUsagePartition(tx, utcMonthStart(now, offset))) created++;
    }
    const dropped = cutoff === undefined ? 0 : await dropUsagePartitionsBefore(tx, cutoff);
    if (created > 0 || dropped > 0) deps.logger.info({ created, dropped, cutoff }, 'usage partitions maintained');
    return { created, dropped };
  });
}

/** The hourly partition maintenance of a server process (one run at a time across processes). */
export class UsagePartitionKeeper {
  readonly #deps: PartitionDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(deps: PartitionDeps) {
    this.#deps = deps;
  }

  start(intervalMs = PARTITION_MAINTENANCE_INTERVAL_MS): void {
    if (this.#timer !== undefined) return;
    const run = () => {
      this.#running = maintainUsagePartitions(this.#deps).catch((error: unknown) =>
        this.#deps.logger.warn({ err: error }, 'usage partition maintenance failed'),
      );
    };
    run();
    this.#timer = setInterval(run, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
