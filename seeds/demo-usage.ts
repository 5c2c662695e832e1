import type { DatabasePool } from 'slonik';
import { GENERATED_MODELS, generateUsage } from './usage-generator.ts';
import { insertUsageEvents } from '../sql/usage-events.ts';
import { insertMissingModelPricing, organizationHasUsage } from '../sql/usage-import.ts';
import { AGENTS, ORGANIZATIONS, USERS } from './demo-fixtures.ts';

/** Days of demo usage, ending at the seed's run (docs/interface.md §3). */
export const DEMO_USAGE_DAYS = 120;
export const DEMO_USAGE_ROWS = 3_000;
/** A model the demo uses but does not price, so cache-savings shows `skippedModelsCount`. */
export const DEMO_UNPRICED_MODEL = 'mistral/mistral-large-2411';

/**
 * 120 days of usage for Demo Agency ending now, and prices for the models it uses but one.
 * Idempotent: nothing is added once Demo Agency has usage; prices an operator set are kept.
 */
export async function seedDemoUsage(db: DatabasePool, now: Date = new Date()): Promise<boolean> {
  return db.transaction(async (tx) => {
    await insertMissingModelPricing(
      tx,
      GENERATED_MODELS.filter((model) => model.modelId !== DEMO_UNPRICED_MODEL).map((model) => ({
        modelId: model.modelId,
        inputUsdPerMTok: model.price.input,
        outputUsdPerMTok: model.price.output,
        cacheReadUsdPerMTok: model.price.cacheRead,
      })),
    );
    if (await organizationHasUsage(tx, ORGANIZATIONS.demoAgency.id)) return false;
    for (const batch of generateUsage({
      organizationId: ORGANIZATIONS.demoAgency.id,
      rows: DEMO_USAGE_ROWS,
      days: DEMO_USAGE_DAYS,
      end: now,
      seed: 20_261_122,
      agentIds: [AGENTS.support.id, AGENTS.research.id],
      userIds: [USERS.owner.id, USERS.member.id],
    })) {
      await insertUsageEvents(tx, batch);
    }
    return true;
  });
}
