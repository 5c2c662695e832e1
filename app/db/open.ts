import type { DatabasePool } from 'slonik';
import { migrate } from '../../sql/migrate.ts';
import type { Config } from '../config.ts';
import { startEmbeddedDatabase } from './embedded.ts';
import { createDatabasePool } from './pool.ts';

export type OpenDatabase = { pool: DatabasePool; embedded: boolean; close(): Promise<void> };

export type OpenOptions = {
  /** Called with each migration file applied. */
  onMigration?: (name: string) => void;
};

/**
 * Opens the configured PostgreSQL server, or the embedded PGlite default when DATABASE_URL is
 * absent, and brings its schema up to date before the pool opens (the embedded server takes
 * one connection at a time, so the migration connection must be gone first).
 */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, options: OpenOptions = {}): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    await migrate(config.databaseUrl, { onApplied: options.onMigration });
    const pool = await createDatabasePool(config.databaseUrl);
    return { pool, embedded: false, close: () => pool.end() };
  }
  const embedded = await startEmbeddedDatabase(config.dataDir);
  try {
    await migrate(embedded.url, { onApplied: options.onMigration });
    const pool = await createDatabasePool(embedded.url, { maximumPoolSize: 1 });
    return {
      pool,
      embedded: true,
      async close() {
        await pool.end();
        await embedded.close();
      },
    };
  } catch (error) {
    await embedded.close();
    throw error;
  }
}
