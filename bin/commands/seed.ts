import type { Command } from 'commander';
import { seedDemo } from '../../seeds/demo.ts';
import { seedCatalog } from '../../seeds/mcp-catalog.ts';
import { say, withDatabase } from '../cli-context.ts';

export function registerSeed(program: Command) {
  const seed = program.command('seed').description('insert fixtures; idempotent (running twice changes nothing)');
  seed
    .command('demo')
    .description('demo organizations, accounts (password demo-password-1), plans and agents')
    .action(async () => {
      await withDatabase(async (database, config) => {
        if (config.nodeEnv === 'production') throw new Error('refusing to seed demo accounts with NODE_ENV=production');
        await seedDemo(database.pool, say);
      });
    });
  seed
    .command('catalog')
    .description('the curated MCP catalog entries whose names are absent')
    .action(async () => {
      await withDatabase(async (database) => {
        await seedCatalog(database.pool, say);
      });
    });
}
