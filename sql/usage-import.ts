import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ActionType, UsageSource } from './usage-window.ts';

/** One usage row as stored (docs/interface.md §4); `costUsd` is a decimal string or number. */
export type UsageEventInput = {
  id: string;
  organizationId: string;
  agentId: string | null;
  userId: string | null;
  modelId: string;
  actionType: ActionType;
  source: UsageSource;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: string | number;
  latencyMs: number | null;
  createdAt: string;
};

/**
 * Inserts a batch with one multi-row statement (`unnest` of one array per column). The
 * statement triggers of usage_events add the batch to the rollups in the same transaction.
 */
export async function insertUsageEvents(db: CommonQueryMethods, rows: readonly UsageEventInput[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO usage_events (id, organization_id, agent_id, user_id, model_id, action_type, source,
                              input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_ms, created_at)
    SELECT * FROM ${sql.unnest(
      rows.map((row) => [
        row.id,
        row.organizationId,
        row.agentId,
        row.userId,
        row.modelId,
        row.actionType,
        row.source,
        row.inputTokens,
        row.outputTokens,
        row.cacheReadTokens,
        String(row.costUsd),
        row.latencyMs,
        row.createdAt,
      ]),
      ['uuid', 'uuid', 'uuid', 'uuid', 'text', 'usage_action', 'usage_source', 'int8', 'int8', 'int8', 'numeric', 'int4', 'timestamptz'],
    )}`);
}

/**
 * Usage imports run one at a time (docs/analytics.md, "BRIN edges": two history imports at once
 * interleave their rows page by page and the raw table's BRIN index stops pruning). The lock is
 * transaction-scoped: an import holds it until its one transaction ends.
 */
export const USAGE_IMPORT_LOCK_KEY = 7_204_193_100;

/** Takes the import lock without waiting: false while another import holds it. */
export async function tryLockUsageImport(db: CommonQueryMethods): Promise<boolean> {
  return db.oneFirst(
    sql.type(z.strictObject({ locked: z.boolean() }))`SELECT pg_try_advisory_xact_lock(${USAGE_IMPORT_LOCK_KEY}) AS locked`,
  );
}

/**
 * Waits for the import lock, however long the running import takes: the wait alone is exempt
 * from the statement timeout (set_config(..., true) is transaction-scoped; the previous value is
 * put back for the import's own statements).
 */
export async function lockUsageImport(db: CommonQueryMethods): Promise<void> {
  const previous = await db.oneFirst(
    sql.type(z.strictObject({ timeout: z.string() }))`SELECT current_setting('statement_timeout') AS timeout`,
  );
  await db.query(sql.unsafe`SELECT set_config('statement_timeout', '0', true)`);
  await db.query(sql.unsafe`SELECT pg_advisory_xact_lock(${USAGE_IMPORT_LOCK_KEY})`);
  await db.query(sql.unsafe`SELECT set_config('statement_timeout', ${previous}, true)`);
}

/** Which of these organization ids exist. */
export async function findExistingOrganizationIds(db: CommonQueryMethods, ids: readonly string[]): Promise<Set<string>> {
  const found = await db.anyFirst(sql.type(z.strictObject({ id: z.string() }))`
    SELECT id::text FROM organizations WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
  return new Set(found);
}

/** Does the organization have any usage rows? */
export async function organizationHasUsage(db: CommonQueryMethods, organizationId: string): Promise<boolean> {
  return db.oneFirst(sql.type(z.strictObject({ present: z.boolean() }))`
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
