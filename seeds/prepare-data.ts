import { systemTimers } from '../app/core/deps.ts';
import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import { seedDemo } from './demo.ts';
import { seedDemoKnowledge } from './demo-knowledge.ts';
import { seedCatalog } from './mcp-catalog.ts';
import type { Config } from '../app/config.ts';

/**
 * What every start does once the schema is current: insert the curated MCP catalog entries
 * that are absent (every environment), and seed the demo fixtures and the Support Assistant's
 * help center where the configuration asks for them (never in production).
 */
export async function prepareData(db: DatabasePool, config: Config, logger: Logger): Promise<void> {
  await seedCatalog(db, (message) => logger.info(message));
  if (config.seedDemo) {
    await seedDemo(db, (message) => logger.info(message));
    // The help center of the Support Assistant; a failure (an embedding provider that is down) does not stop the start.
    const deps = { db, redis: undefined, config, clock: () => new Date(), timers: systemTimers, logger, accessTokenTtlSeconds: 900 };
    await seedDemoKnowledge(deps).then(
      (added) =>
        logger.info(added ? `demo help center added (${added} documents for the Support Assistant)` : 'demo help center already present'),
      (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'demo help center not added'),
    );
  }
}
