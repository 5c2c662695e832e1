import type { Logger } from 'pino';
import type { DatabasePool } from 'slonik';
import { seedDemo } from './demo.ts';
import { seedCatalog } from './mcp-catalog.ts';
import type { Config } from '../app/config.ts';

/**
 * What every start does once the schema is current: insert the curated MCP catalog entries
 * that are absent (every environment), and seed the demo fixtures where the configuration
 * asks for them (never in production).
 */
export async function prepareData(db: DatabasePool, config: Config, logger: Logger): Promise<void> {
  await seedCatalog(db, (message) => logger.info(message));
  if (config.seedDemo) {
    await seedDemo(db, (message) => logger.info(message));
  }
}
