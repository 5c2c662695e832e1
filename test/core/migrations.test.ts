import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { migrate, readMigrations } from '../../sql/migrate.ts';
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
