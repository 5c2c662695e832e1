import type { Command } from 'commander';
import { loadConfig } from '../../app/config.ts';
import { openDatabase } from '../../app/db/open.ts';
import { say } from '../cli-context.ts';

export function registerMigrate(program: Command) {
  program
    .command('migrate')
    .description('apply pending migrations from sql/migrations (safe while other instances start)')
    .action(async () => {
      const applied: string[] = [];
      const database = await openDatabase(loadConfig(), {
        onMigration: (name) => {
          applied.push(name);
          say(`applied ${name}`);
        },
      });
      await database.close();
      say(applied.length ? `${applied.length} migration(s) applied` : 'schema is current');
    });
}
