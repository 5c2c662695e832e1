import anyTest from 'ava';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../sql/migrate.ts';
import { createTestDatabase } from '../helpers/database.ts';

const test = anyTest;

test('four instances starting at once on an empty database apply each migration exactly once', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const files = (await readMigrations()).map((m) => m.name);
  const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(db.url)));
  // Exactly one run applied everything; the other three found the schema current.
  t.deepEqual(
    runs.map((applied) => applied.length).sort((a, b) => a - b),
    [0, 0, 0, files.length],
  );
  const recorded = await db.pool.any(sql.type(z.object({ name: z.string() }))`SELECT name FROM schema_migrations ORDER BY name`);
  t.deepEqual(
    recorded.map((row) => row.name),
    files,
  );
  t.deepEqual(await migrate(db.url), []);
});

test('a migration changed after it was applied stops the start', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  await migrate(db.url);
  await db.pool.query(sql.unsafe`UPDATE schema_migrations SET checksum = 'tampered' WHERE name = '0001_identity.sql'`);
  const error = await t.throwsAsync(() => migrate(db.url));
  t.is(error?.message, 'migration 0001_identity.sql was changed after it was applied');
});

/** A copy of the migration files, with `name` left out or renamed, for replaying older releases. */
async function migrationsDir(edit: (names: string[]) => Map<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  const names = (await readMigrations()).map((m) => m.name);
  for (const [from, to] of edit(names)) await copyFile(join(MIGRATIONS_DIR, from), join(dir, to));
  return dir;
}

const RENUMBERED = '0403_identity_delivery_reset_handoffs.sql';
const OLD_NAME = '0150_identity_delivery_reset_handoffs.sql';

/** `pg_dump --schema-only`, without the per-run `\restrict` key newer pg_dump prints. */
function schemaOf(url: string): string {
  const dump = execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', url], { encoding: 'utf8' });
  return dump
    .split('\n')
    .filter((line) => !/^\\(un)?restrict /.test(line))
    .join('\n');
}

test('a database upgraded from the release before 0150 ends with the same schema as a fresh one', async (t) => {
  const fresh = await createTestDatabase({ empty: true });
  const upgraded = await createTestDatabase({ empty: true });
  t.teardown(() => Promise.all([fresh.drop(), upgraded.drop()]));
  // That release shipped every file below the renumbered one (and none added since).
  const before = await migrationsDir((names) => new Map(names.filter((n) => n < RENUMBERED).map((n) => [n, n])));
  t.teardown(() => rm(before, { recursive: true }));

  await migrate(fresh.url);
  await migrate(upgraded.url, { dir: before });
  t.deepEqual(
    await migrate(upgraded.url),
    (await readMigrations()).map((m) => m.name).filter((n) => n >= RENUMBERED),
  );

  const schema = schemaOf(fresh.url);
  t.true(schema.includes('CREATE TABLE public.sign_in_handoffs'));
  t.is(schemaOf(upgraded.url), schema);
});

test('a database that applied the renumbered file under its old name is current and records the new name', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const old = await migrationsDir((names) => new Map(names.map((n) => [n, n === RENUMBERED ? OLD_NAME : n])));
  t.teardown(() => rm(old, { recursive: true }));

  await migrate(db.url, { dir: old });
  t.deepEqual(await migrate(db.url), []);
  const recorded = await db.pool.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM schema_migrations ORDER BY name`);
  t.deepEqual(
    recorded,
    (await readMigrations()).map((m) => m.name),
  );
});

test('a pending migration numbered below the newest applied one stops the start and names both', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  await migrate(db.url);
  const newest = (await readMigrations()).at(-1)!.name;
  const late = await migrationsDir((names) => new Map(names.map((n) => [n, n])));
  t.teardown(() => rm(late, { recursive: true }));
  await writeFile(join(late, '0005_late_table.sql'), 'CREATE TABLE late_table (id int);\n');

  const error = await t.throwsAsync(() => migrate(db.url, { dir: late }));
  t.is(error?.message, `migration 0005_late_table.sql is numbered below ${newest}, which is already applied; renumber it above ${newest}`);
  const lateTable = await db.pool.maybeOne(
    sql.type(z.object({ oid: z.unknown() }))`SELECT to_regclass('late_table') AS oid WHERE to_regclass('late_table') IS NOT NULL`,
  );
  t.is(lateTable, null);
});
