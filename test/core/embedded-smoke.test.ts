import test from 'ava';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { maintainUsagePartitions } from '../../app/analytics/partitions.ts';
import { createApp } from '../../app/app.ts';
import { listUsagePartitionMonths } from '../../sql/usage-partitions.ts';
import { openDatabase } from '../../app/db/open.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { testConfig } from '../helpers/app.ts';

test('the embedded default (PGlite) migrates, seeds and serves an authenticated request', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-smoke-'));
  const database = await openDatabase({ databaseUrl: undefined, dataDir });
  t.teardown(() => database.close());
  t.true(database.embedded);
  await seedDemo(database.pool);

  // Nobody else (another process, or this one again) may open the data directory while it is held.
  await t.throwsAsync(() => openDatabase({ databaseUrl: undefined, dataDir }), { message: /in use by process/ });

  const app = createApp({ db: database.pool, config: testConfig({ dataDir }), logger: pino({ level: 'silent' }) });
  const server = app.listen(0, '127.0.0.1');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;

  const login = await fetch(`${base}/identity/auth/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@demo.test', password: 'demo-password-1' }),
  });
  t.is(login.status, 200);
  const { accessToken } = (await login.json()) as { accessToken: string };
  const me = await fetch(`${base}/identity/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  t.is(me.status, 200);
  t.like(await me.json(), { email: 'owner@demo.test', type: 'user', emailVerified: true });

  // The usage partition maintenance a server process runs at start works on PGlite too.
  const partitions = { db: database.pool, clock: () => new Date('2031-05-20T00:00:00.000Z'), logger: pino({ level: 'silent' }) };
  t.like(await maintainUsagePartitions({ ...partitions, config: testConfig({ dataDir, usageRetentionMonths: 1 }) }), { created: 4 });
  t.deepEqual(await listUsagePartitionMonths(database.pool), ['2031-05', '2031-06', '2031-07', '2031-08']);
});
