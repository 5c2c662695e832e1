import { insertUsageEvents } from '../../../sql/usage-events.ts';
import { findUnstoredIngestKeys, type IngestedUsageEvent } from '../../../sql/usage-ingest.ts';
import type { AppDeps } from '../../core/deps.ts';
import { afterUsageWritten } from '../budget/checker.ts';

export type IngestResult = { accepted: number; duplicates: number };

/**
 * Stores events of one organization that arrived from outside (events API, OTLP): those whose
 * ingest key is new are inserted, the rest count as duplicates and change nothing. Then the
 * organization's budget is checked, so an alert leaves with the write that caused it.
 *
 * `ingestKeys[i]` is the key of the i-th event and `eventAt(i)` builds it, only when needed: a
 * resent batch (an exporter's retry) is common, so the keys are probed first and a batch of
 * known keys costs one small query, with no row built or sent. The insert still decides under
 * concurrency (a key stored between the probe and the insert is skipped there and counted as a
 * duplicate), so the probe is only a shortcut.
 */
export async function storeIngestedEvents(
  deps: AppDeps,
  organizationId: string,
  ingestKeys: readonly string[],
  eventAt: (index: number) => IngestedUsageEvent,
): Promise<IngestResult> {
  const unstored = await findUnstoredIngestKeys(deps.db, organizationId, ingestKeys);
  const startedAt = performance.now();
  const { inserted: accepted, costUsd } = await insertUsageEvents(deps.db, unstored.map(eventAt));
  if (accepted > 0) await afterUsageWritten(deps, organizationId, { costUsd, startedAt });
  return { accepted, duplicates: ingestKeys.length - accepted };
}
