import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { LockedRow } from './rows.ts';

/**
 * The monthly partitions of usage_events (migration 0900): created ahead by the service,
 * dropped by retention. The DDL lives in two SQL functions of the migration, so nothing here
 * builds a table name.
 */

const CreatedRow = z.strictObject({ created: z.boolean() });

/** Creates the partition of the UTC month containing `month` (rows waiting in the default partition move in); false when it exists. */
export function createUsagePartition(db: CommonQueryMethods, month: Date): Promise<boolean> {
  return db.oneFirst(sql.type(CreatedRow)`
    SELECT usage_events_create_partition(${month.toISOString()}::timestamptz) AS created`);
}

const DroppedRow = z.strictObject({ dropped: z.number().int() });

/**
 * Drops the monthly partitions that end at or before `cutoff` (a UTC month start) and the
 * default partition's rows before it; the rollups keep those months. Returns how many
 * partitions were dropped.
 */
export function dropUsagePartitionsBefore(db: CommonQueryMethods, cutoff: Date): Promise<number> {
  return db.oneFirst(sql.type(DroppedRow)`
    SELECT usage_events_drop_before(${cutoff.toISOString()}::timestamptz) AS dropped`);
}

const MonthRow = z.strictObject({ month: z.string() });

/** The UTC months (first instant, ISO) that have a partition, oldest first. */
export function listUsagePartitionMonths(db: CommonQueryMethods) {
  return db.anyFirst(sql.type(MonthRow)`
    SELECT to_char(to_date(right(c.relname, 6), 'YYYYMM'), 'YYYY-MM') AS month
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'usage_events'::regclass AND c.relname ~ '^usage_events_[0-9]{6}$'
    ORDER BY c.relname`);
}

/** Takes the partition-maintenance lock for the current transaction when no other session holds it; false otherwise. */
export function tryUsagePartitionLock(db: CommonQueryMethods): Promise<boolean> {
  return db.oneFirst(sql.type(LockedRow)`
    SELECT pg_try_advisory_xact_lock(${USAGE_PARTITION_LOCK_KEY}) AS locked`);
}

/** Advisory lock key of the partition maintenance (the budget sweep and migrations use their own). */
export const USAGE_PARTITION_LOCK_KEY = 7_204_193_090;
