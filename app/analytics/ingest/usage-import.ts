import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { DatabasePool } from 'slonik';
import { insertUsageEvents, type UsageEventInput } from '../../../sql/usage-events.ts';
import { findExistingOrganizationIds, lockUsageImport, tryLockUsageImport } from '../../../sql/usage-import.ts';
import { parseUsageLine, UsageLineError } from './usage-event-parser.ts';

export const IMPORT_BATCH_SIZE = 5_000;

/**
 * Imports an NDJSON file of usage events: streamed line by line, inserted in batches, all in
 * one transaction, so a bad line (named with its number and field) leaves nothing behind.
 * Blank lines are skipped. Returns the number of rows inserted and the organizations they belong
 * to (whose budgets the caller checks, `afterUsageWritten`). Imports run one at a time: while
 * another holds the import lock this one waits (`onWait` is told once) and then starts.
 */
export async function importUsageFile(
  db: DatabasePool,
  path: string,
  onProgress: (rows: number) => void = () => {},
  onWait: () => void = () => {},
): Promise<{ rows: number; organizationIds: string[] }> {
  return db.transaction(async (tx) => {
    if (!(await tryLockUsageImport(tx))) {
      onWait();
      await lockUsageImport(tx);
    }
    const knownOrganizations = new Set<string>();
    let total = 0;
    const flush = async (batch: UsageEventInput[], batchLines: number[]) => {
      const unknown = batch.map((row) => row.organizationId).filter((id) => !knownOrganizations.has(id));
      if (unknown.length) {
        const found = await findExistingOrganizationIds(tx, [...new Set(unknown)]);
        for (const id of found) knownOrganizations.add(id);
        const missing = batch.findIndex((row) => !knownOrganizations.has(row.organizationId));
        if (missing >= 0) throw new UsageLineError(batchLines[missing]!, 'organizationId', 'no such organization');
      }
      await insertUsageEvents(tx, batch);
      total += batch.length;
      onProgress(total);
    };
    // Pipelined: the next batch is parsed while PostgreSQL inserts the previous one (at most
    // one statement in flight, so batches still run in file order on the one connection).
    let pending: Promise<void> = Promise.resolve();
    const send = async (batch: UsageEventInput[], batchLines: number[]) => {
      await pending;
      pending = flush(batch, batchLines);
      pending.catch(() => {}); // awaited later; this only marks the rejection as handled
    };
    let batch: UsageEventInput[] = [];
    let batchLines: number[] = [];
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    let lineNumber = 0;
    try {
      for await (const text of lines) {
        lineNumber += 1;
        if (text.trim() === '') continue;
        batch.push(parseUsageLine(text, lineNumber));
        batchLines.push(lineNumber);
        if (batch.length >= IMPORT_BATCH_SIZE) {
          await send(batch, batchLines);
          batch = [];
          batchLines = [];
        }
      }
      if (batch.length) await send(batch, batchLines);
    } catch (error) {
      // Let the statement in flight finish before the transaction rolls back.
      await pending.catch(() => {});
      throw error;
    }
    await pending;
    return { rows: total, organizationIds: [...knownOrganizations] };
  });
}
