import { insertIngestedUsageEvents, type IngestedUsageEvent } from '../../../sql/usage-ingest.ts';
import type { AppDeps } from '../../core/deps.ts';
import { afterUsageWritten } from '../budget/checker.ts';

export type IngestResult = { accepted: number; duplicates: number };

/**
 * Stores events of one organization that arrived from outside (events API, OTLP): those whose
 * ingest key is new are inserted, the rest count as duplicates and change nothing. Then the
 * organization's budget is checked, so an alert leaves with the write that caused it.
 */
export async function storeIngestedEvents(
  deps: AppDeps,
  organizationId: string,
  rows: readonly IngestedUsageEvent[],
): Promise<IngestResult> {
  const accepted = await insertIngestedUsageEvents(deps.db, rows);
  if (accepted > 0) await afterUsageWritten(deps, organizationId);
  return { accepted, duplicates: rows.length - accepted };
}
