import { pino } from 'pino';
import { loadConfig, type Config } from '../app/config.ts';
import { openDatabase, type OpenDatabase } from '../app/db/open.ts';

/** A command that fails with a message for the operator (exit code 1, no stack trace). */
export class CliError extends Error {
  override name = 'CliError';
}

/** Progress and results go to stderr as plain lines; stdout stays free for data. */
export const say = (message: string) => process.stderr.write(`${message}\n`);

/**
 * Opens the configured database (migrated, like at start-up) for one command and closes it
 * afterwards, whatever happens.
 */
export async function withDatabase<T>(run: (database: OpenDatabase, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = pino({ level: 'warn' });
  const database = await openDatabase(config, {
    onMigration: (name) => logger.warn({ migration: name }, 'migration applied'),
  });
  try {
    return await run(database, config);
  } finally {
    await database.close();
  }
}
