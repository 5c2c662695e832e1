/**
 * The floor of the events path: the same batches of 1000 events written by the statement the
 * route runs (`insertUsageEvents`: ingest keys, rows, prices, the rollup triggers), with
 * CONCURRENCY statements in flight from this process, and no HTTP, token, validation or service
 * between. Its rows/s and p99 per batch are what PostgreSQL alone allows on this machine.
 */
import { performance } from 'node:perf_hooks';
import type { DatabasePool } from 'slonik';
import { insertUsageEvents, type UsageEventInput } from '../../sql/usage-events.ts';
import type { IngestedUsageEvent } from '../../sql/usage-ingest.ts';

export type StorageRun = { rows: number; seconds: number; latencies: number[] };

export async function storageAlone(db: DatabasePool, rows: UsageEventInput[], batchSize: number, concurrency: number): Promise<StorageRun> {
  const batches: IngestedUsageEvent[][] = [];
  for (let i = 0; i < rows.length; i += batchSize) {
    batches.push(rows.slice(i, i + batchSize).map((row) => ({ ...row, ingestKey: `event:${row.id}`, costUsd: Number(row.costUsd) })));
  }
  const latencies: number[] = [];
  let [next, stored] = [0, 0];
  const started = performance.now();
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      const sent = performance.now();
      const { inserted } = await insertUsageEvents(db, batch);
      latencies.push(performance.now() - sent);
      stored += inserted;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { rows: stored, seconds: (performance.now() - started) / 1000, latencies };
}
