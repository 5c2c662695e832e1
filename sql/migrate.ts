import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATION_RENAMES } from './migration-renames.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));

/** Key of the session-level advisory lock that serialises migration runs across instances. */
const MIGRATION_LOCK_KEY = 7_204_193_001;

export type Migration = { name: string; checksum: string; text: string };

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => {
      const text = await readFile(join(dir, name), 'utf8');
      return { name, text, checksum: createHash('sha256').update(text).digest('hex') };
    }),
  );
}

/**
 * Applies the pending migrations in file-name order, each in its own transaction, under a
 * PostgreSQL advisory lock so that instances starting together apply each file exactly once.
 * An applied file whose contents changed is an error: migrations are append-only. So is a
 * pending file that sorts below the newest applied one: a fresh database would apply it
 * earlier than an upgraded one, and the two schemas could differ (renumber it instead).
 *
 * Migration files are multi-statement scripts, which Slonik refuses by design; they run
 * through node-postgres (Slonik's own driver) on one dedicated connection, as simple-protocol
 * queries without parameters. Everything else in the service goes through Slonik.
 */
export async function migrate(databaseUrl: string, options: { dir?: string; onApplied?: (name: string) => void } = {}): Promise<string[]> {
  const migrations = await readMigrations(options.dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    for (const [from, to] of MIGRATION_RENAMES) {
      await client.query('UPDATE schema_migrations SET name = $2 WHERE name = $1', [from, to]);
    }
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations');
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const newest = rows
      .map((row) => row.name)
      .sort()
      .at(-1);
    const done: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new Error(`migration ${migration.name} was changed after it was applied`);
        continue;
      }
      if (newest !== undefined && migration.name < newest) {
        throw new Error(`migration ${migration.name} is numbered below ${newest}, which is already applied; renumber it above ${newest}`);
      }
      try {
        await client.query('BEGIN');
        await client.query(migration.text);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [migration.name, migration.checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(migration.name);
      options.onApplied?.(migration.name);
    }
    return done;
  } finally {
    await client.end();
  }
}
