import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow, LockedRow, PresentRow } from './rows.ts';

/**
 * Usage imports run one at a time (docs/analytics.md, "BRIN edges": two history imports at once
 * interleave their rows page by page and the raw table's BRIN index stops pruning). The lock is
 * transaction-scoped: an import holds it until its one transaction ends.
 */
export const USAGE_IMPORT_LOCK_KEY = 7_204_193_100;

/** Takes the import lock without waiting: false while another import holds it. */
export async function tryLockUsageImport(db: CommonQueryMethods): Promise<boolean> {
  return db.oneFirst(sql.type(LockedRow)`SELECT pg_try_advisory_xact_lock(${USAGE_IMPORT_LOCK_KEY}) AS locked`);
}

const TimeoutRow = z.strictObject({ timeout: z.string() });

/**
 * Waits for the import lock, however long the running import takes: the wait alone is exempt
 * from the statement timeout (set_config(..., true) is transaction-scoped; the previous value is
 * put back for the import's own statements).
 */
export async function lockUsageImport(db: CommonQueryMethods): Promise<void> {
  const previous = await db.oneFirst(sql.type(TimeoutRow)`SELECT current_setting('statement_timeout') AS timeout`);
  await db.query(sql.unsafe`SELECT set_config('statement_timeout', '0', true)`);
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(${USAGE_IMPORT_LOCK_KEY})`);
  await db.query(sql.unsafe`SELECT set_config('statement_timeout', ${previous}, true)`);
}

/** Which of these organization ids exist. */
export async function findExistingOrganizationIds(db: CommonQueryMethods, ids: readonly string[]): Promise<Set<string>> {
  const found = await db.anyFirst(sql.type(IdRow)`
    SELECT id::text FROM organizations WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
  return new Set(found);
}

/** Does the organization have any usage rows? */
export async function organizationHasUsage(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  return db.oneFirst(sql.type(PresentRow)`
    SELECT EXISTS (SELECT 1 FROM usage_events WHERE organization_id = ${organizationId}) AS present`);
}

export type ModelPricingInput = {
  modelId: string;
  inputUsdPerMTok: number | string;
  outputUsdPerMTok: number | string;
  cacheReadUsdPerMTok: number | string;
};

/** The prices as rows of (model_id, input, output, cache_read) for `SELECT * FROM`. */
function pricingRows(prices: readonly ModelPricingInput[]) {
  return sql.unnest(
    prices.map((p) => [p.modelId, String(p.inputUsdPerMTok), String(p.outputUsdPerMTok), String(p.cacheReadUsdPerMTok)]),
    ['text', 'numeric', 'numeric', 'numeric'],
  );
}

/** Inserts or replaces prices by model id (USD per million tokens). */
export async function upsertModelPricing(db: CommonQueryMethods, prices: readonly ModelPricingInput[]): Promise<void> {
  if (prices.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    SELECT * FROM ${pricingRows(prices)}
    ON CONFLICT (model_id) DO UPDATE SET
      input_usd_per_mtok = excluded.input_usd_per_mtok,
      output_usd_per_mtok = excluded.output_usd_per_mtok,
      cache_read_usd_per_mtok = excluded.cache_read_usd_per_mtok,
      updated_at = now()`);
}

/** Inserts prices only for models that have none (the demo seed never overwrites an operator's prices). */
export async function insertMissingModelPricing(db: CommonQueryMethods, prices: readonly ModelPricingInput[]): Promise<void> {
  if (prices.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    SELECT * FROM ${pricingRows(prices)}
    ON CONFLICT (model_id) DO NOTHING`);
}
