import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabasePool } from 'slonik';
import { createDatabasePool } from '../../app/db/pool.ts';
import { migrate, readMigrations } from '../../sql/migrate.ts';

/** Server that tests run against; CI and developers' machines run PostgreSQL here. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const TEMPLATE_LOCK_KEY = 7_204_193_002;

export const urlFor = (database: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

/** Runs `run` on a fresh connection to the server's maintenance database (`adminUrl`), then closes it. */
export async function withAdmin<T>(run: (client: pg.Client) => Promise<T>, adminUrl: string = ADMIN_URL): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const ident = (name: string) => {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unsafe database name ${name}`);
  return `"${name}"`;
};

/**
 * The migrated template for the current migration files, named after their hash, built once
 * per set of files (under an advisory lock, so parallel workers build it once) and reused.
 */
async function ensureTemplate(): Promise<string> {
  const migrations = await readMigrations();
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(m.name).update(m.checksum);
  const template = `tpl_${hash.digest('hex').slice(0, 16)}`;
  await withAdmin(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount) return;
      const building = `${template}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${ident(building)}`);
      await client.query(`CREATE DATABASE ${ident(building)}`);
      await migrate(urlFor(building));
      // Renamed only once complete, so a crashed build is never used as a template.
      await client.query(`ALTER DATABASE ${ident(building)} RENAME TO ${ident(template)}`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return template;
}

export type TestDatabase = { name: string; url: string; pool: DatabasePool; drop(): Promise<void> };

/** A fresh database for one test file: migrated (cloned from the template) or empty. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const template = options.empty ? undefined : await ensureTemplate();
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${ident(name)}${template ? ` TEMPLATE ${ident(template)}` : ''}`);
        // A test's commits need not wait for the disk: what a test reads is the same either way,
        // and a suite of a thousand tests otherwise spends its time in fsync.
        await client.query(`ALTER DATABASE ${ident(name)} SET synchronous_commit = off`);
        return;
      } catch (error) {
        // Another worker may be cloning the same template at this instant.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        // Waiting on PostgreSQL, an external peer: a jittered retry, at most 20 of them.
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
  const url = urlFor(name);
  const pool = await createDatabasePool(url, { maximumPoolSize: 20 });
  return {
    name,
    url,
    pool,
    async drop() {
      await pool.end();
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
    },
  };
}
