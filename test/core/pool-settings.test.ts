import test from 'ava';
import { sql } from 'slonik';
import { createDatabasePool } from '../../app/db/pool.ts';
import { createTestDatabase } from '../helpers/database.ts';

const settings = sql.unsafe`SELECT current_setting('jit') AS jit, current_setting('application_name') AS app`;

test('the service runs its statements without JIT compilation', async (t) => {
  const database = await createTestDatabase({ empty: true });
  t.teardown(() => database.drop());
  t.is((await database.pool.one(settings)).jit, 'off');
});

test('startup options in the database URL are kept beside jit=off, and a jit setting there wins', async (t) => {
  const database = await createTestDatabase({ empty: true });
  t.teardown(() => database.drop());
  const withOptions = new URL(database.url);
  withOptions.searchParams.set('options', '-c application_name=ops-report');
  const pool = await createDatabasePool(withOptions.toString(), { maximumPoolSize: 1 });
  t.like(await pool.one(settings), { jit: 'off', app: 'ops-report' });
  await pool.end();
  withOptions.searchParams.set('options', '-c jit=on');
  const jitOn = await createDatabasePool(withOptions.toString(), { maximumPoolSize: 1 });
  t.is((await jitOn.one(settings)).jit, 'on');
  await jitOn.end();
});
