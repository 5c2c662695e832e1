import anyTest from 'ava';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../app/app.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { CapturedLogs, testConfig } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';

const test = anyTest;

/**
 * An app whose database disappears after start: its connections are terminated and new ones
 * are refused, the way an outage looks from the service.
 */
async function appWithoutDatabase() {
  const database = await createTestDatabase({ empty: true });
  // Generous: creating the pool connects once, and on a loaded 2-core machine that took longer than 2 s
  // (CI, 2026-11-24, load average 17). The later connects fail at once: the database no longer exists.
  const db = await createDatabasePool(database.url, { connectionTimeoutMs: 15_000 });
  const logs = new CapturedLogs();
  const app = createApp({ db, config: testConfig(), logger: pino({ level: 'info' }, logs.stream) });
  await database.drop();
  return { app, db, logs, http: () => request(app.callback()) };
}

test('readiness is 503 when PostgreSQL is unreachable, while liveness stays 200', async (t) => {
  const { http, db } = await appWithoutDatabase();
  t.teardown(() => db.end());
  await http().get('/api/health').expect(200, { status: 'ok' });
  const response = await http().get('/api/ready').expect(503);
  t.deepEqual(response.body, {
    statusCode: 503,
    message: 'Service not ready',
    checks: { postgres: 'down', redis: 'not configured' },
  });
});

/** An app over a reachable database without the schema: every query fails, and not for a lost connection. */
async function appWithoutSchema() {
  const database = await createTestDatabase({ empty: true });
  const logs = new CapturedLogs();
  const app = createApp({ db: database.pool, config: testConfig(), logger: pino({ level: 'info' }, logs.stream) });
  return { app, database, logs, http: () => request(app.callback()) };
}

test('a database that has gone away answers 503 CORE.SERVICE_UNAVAILABLE with Retry-After, without internals, logged once', async (t) => {
  const { http, db, logs } = await appWithoutDatabase();
  t.teardown(() => db.end());
  const response = await http()
    .post('/api/identity/auth/user/login')
    .set('x-request-id', 'req-503-check')
    .send({ email: 'owner@demo.test', password: 'demo-password-1' })
    .expect(503);
  t.is(response.body.errorCode, 'CORE.SERVICE_UNAVAILABLE');
  t.is(response.headers['retry-after'], '1');
  t.false(/\bat |stack|does not exist|SELECT|postgres|slonik/i.test(response.text));
  const errors = logs.entries.filter((entry) => entry.msg === 'unhandled error');
  t.is(errors.length, 1);
  t.is(errors[0]!.requestId, 'req-503-check');
});

test('an unexpected failure answers a bare 500 with the request id, without stack or internals, and is logged once', async (t) => {
  const { http, database, logs } = await appWithoutSchema();
  t.teardown(() => database.drop());
  const response = await http()
    .post('/api/identity/auth/user/login')
    .set('x-request-id', 'req-500-check')
    .send({ email: 'owner@demo.test', password: 'demo-password-1' })
    .expect(500);
  t.deepEqual(response.body, { statusCode: 500, message: 'Internal Server Error', requestId: 'req-500-check' });
  t.false(/\bat |stack|does not exist|SELECT|postgres|slonik/i.test(response.text));
  const errors = logs.entries.filter((entry) => entry.msg === 'unhandled error');
  t.is(errors.length, 1);
  t.is(errors[0]!.requestId, 'req-500-check');
});
