import anyTest, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { sql } from 'slonik';
import { z } from 'zod';
import request from 'supertest';
import { testConfig, withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const owner = async (t: ExecutionContext<TestContext>, email = 'owner@demo.test') => `Bearer ${await t.context.t.login(email)}`;

const agentsNamed = (t: ExecutionContext<TestContext>, name: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM agents WHERE name = ${name}`);

const createAgent = (t: ExecutionContext<TestContext>, auth: string, key: string | undefined, body: Record<string, unknown>) => {
  const request = t.context.t.http().post('/api/ai/agents').set('authorization', auth);
  if (key !== undefined) request.set('idempotency-key', key);
  return request.send(body);
};

/** A connection of the test's own to this file's database, to hold locks and terminate the app's backends. */
async function controller(t: ExecutionContext<TestContext>) {
  const client = new pg.Client({ connectionString: t.context.t.db.url });
  await client.connect();
  t.teardown(() => client.end());
  const database = t.context.t.db.name;
  return {
    query: (text: string, values: unknown[] = []) => client.query(text, values),
    /** Waits until a backend of this database holds an advisory lock and waits on a table lock: a create in flight. */
    async createInFlight(): Promise<number> {
      for (let i = 0; i < 1000; i++) {
        await client.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await client.query<{ pid: number }>(
          `SELECT a.pid FROM pg_stat_activity a
           WHERE a.datname = $1 AND a.wait_event_type = 'Lock' AND a.pid <> pg_backend_pid()
             AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted)`,
          [database],
        );
        if (rows[0]) return rows[0].pid;
        // Waiting on PostgreSQL, an external peer: its activity view is polled, at most 1000 times.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('no create got in flight');
    },
    async terminate(pid: number) {
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND datname = $2', [pid, database]);
    },
  };
}

test('a create retried with the same key and body replays the first answer with Idempotent-Replayed and creates once', async (t) => {
  const auth = await owner(t);
  const first = await createAgent(t, auth, 'key-replay-1', { name: 'Replayed Agent', description: 'once' });
  t.is(first.status, 201);
  t.is(first.headers['idempotent-replayed'], undefined);
  // The same body with its keys in another order is the same request.
  const second = await createAgent(t, auth, 'key-replay-1', { description: 'once', name: 'Replayed Agent' });
  t.is(second.status, 201);
  t.is(second.headers['idempotent-replayed'], 'true');
  t.deepEqual(second.body, first.body);
  t.is(await agentsNamed(t, 'Replayed Agent'), 1);
  // Without a key, a repeat is a new creation, as before.
  await createAgent(t, auth, undefined, { name: 'Unkeyed Agent' }).expect(201);
  await createAgent(t, auth, undefined, { name: 'Unkeyed Agent' }).expect(201);
  t.is(await agentsNamed(t, 'Unkeyed Agent'), 2);
});

test('the same key with another body is 422 and creates nothing; another principal has its own keys', async (t) => {
  const auth = await owner(t);
  await createAgent(t, auth, 'key-conflict', { name: 'Conflict First' }).expect(201);
  const other = await createAgent(t, auth, 'key-conflict', { name: 'Conflict Second' });
  t.is(other.status, 422);
  t.deepEqual(other.body, {
    statusCode: 422,
    errorCode: 'CORE.IDEMPOTENCY_KEY_REUSED',
    message: {
      en: 'This Idempotency-Key was used with another request in the last 24 hours.',
      es: 'Esta Idempotency-Key se usó con otra solicitud en las últimas 24 horas.',
    },
  });
  t.is(await agentsNamed(t, 'Conflict Second'), 0);
  const elsewhere = await createAgent(t, await owner(t, 'owner@other.test'), 'key-conflict', { name: 'Conflict Second' });
  t.is(elsewhere.status, 201);
  t.is(elsewhere.headers['idempotent-replayed'], undefined);
});

test.serial('a request with a key still in flight makes a second one a 409; once it commits, a retry replays it', async (t) => {
  const auth = await owner(t);
  const control = await controller(t);
  await control.query('BEGIN');
  await control.query('LOCK TABLE agents IN EXCLUSIVE MODE');
  const first = createAgent(t, auth, 'key-in-flight', { name: 'In Flight' }).then((response) => response);
  await control.createInFlight();
  const second = await createAgent(t, auth, 'key-in-flight', { name: 'In Flight' });
  t.is(second.status, 409);
  t.is(second.body.errorCode, 'CORE.IDEMPOTENCY_KEY_IN_FLIGHT');
  await control.query('COMMIT');
  const done = await first;
  t.is(done.status, 201);
  const retry = await createAgent(t, auth, 'key-in-flight', { name: 'In Flight' });
  t.is(retry.status, 201);
  t.is(retry.headers['idempotent-replayed'], 'true');
  t.is(retry.body.id, done.body.id);
  t.is(await agentsNamed(t, 'In Flight'), 1);
});

test.serial(
  'a create whose database connection is lost answers 503, stores no key, and its retry with the key creates exactly once',
  async (t) => {
    const auth = await owner(t);
    const control = await controller(t);
    await control.query('BEGIN');
    await control.query('LOCK TABLE agents IN EXCLUSIVE MODE');
    const first = createAgent(t, auth, 'key-lost', { name: 'Lost Connection' }).then((response) => response);
    await control.terminate(await control.createInFlight());
    const lost = await first;
    await control.query('COMMIT');
    t.is(lost.status, 503);
    t.is(lost.body.errorCode, 'CORE.SERVICE_UNAVAILABLE');
    const retry = await createAgent(t, auth, 'key-lost', { name: 'Lost Connection' });
    t.is(retry.status, 201);
    t.is(retry.headers['idempotent-replayed'], undefined);
    const again = await createAgent(t, auth, 'key-lost', { name: 'Lost Connection' });
    t.is(again.headers['idempotent-replayed'], 'true');
    t.is(await agentsNamed(t, 'Lost Connection'), 1);
  },
);

test('an error answer stores nothing: the key stays free for a corrected request', async (t) => {
  const admin = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  const entry = (name: string) => ({
    name,
    tags: ['docs'],
    variants: [
      { type: 'free', url: 'https://free.example.com/mcp', transportType: 'http', credentialSchema: { type: 'free', fields: [] } },
    ],
  });
  const post = (body: object) =>
    t.context.t.http().post('/api/available-mcps').set('authorization', admin).set('idempotency-key', 'catalog-key').send(body);
  await post(entry('Keyed Catalog Entry')).expect(201);
  const taken = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', admin)
    .set('idempotency-key', 'catalog-key-2')
    .send(entry('Keyed Catalog Entry'));
  t.is(taken.status, 409);
  const corrected = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', admin)
    .set('idempotency-key', 'catalog-key-2')
    .send(entry('Keyed Catalog Entry 2'));
  t.is(corrected.status, 201);
  t.is(corrected.headers['idempotent-replayed'], undefined);
});

test('a key is honoured for 24 hours: after that it creates again', async (t) => {
  const auth = await owner(t);
  await createAgent(t, auth, 'key-expiring', { name: 'Expiring One' }).expect(201);
  await t.context.t.db.pool.query(
    sql.unsafe`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = 'key-expiring'`,
  );
  const later = await createAgent(t, auth, 'key-expiring', { name: 'Expiring Two' });
  t.is(later.status, 201);
  t.is(later.headers['idempotent-replayed'], undefined);
});

test('a key that is empty, too long or not visible ASCII is a 400 at the header and creates nothing', async (t) => {
  const auth = await owner(t);
  for (const key of ['', 'x'.repeat(256), 'has space', 'caf\u00e9']) {
    const response = await t.context.t
      .http()
      .post('/api/ai/agents')
      .set('authorization', auth)
      .set('idempotency-key', Buffer.from(key, 'latin1').toString('latin1'))
      .send({ name: 'Bad Key Agent' });
    t.is(response.status, 400, JSON.stringify(key));
    t.deepEqual(response.body.errors, [{ path: ['headers', 'Idempotency-Key'], message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  t.is(await agentsNamed(t, 'Bad Key Agent'), 0);
});

test('a public registration replays under its key, and only an HMAC of the request (never the password) is stored', async (t) => {
  const body = { email: 'keyed-register@demo.test', password: 'a-long-password-123', name: 'Keyed', organizationName: 'Keyed Org' };
  const post = () =>
    t.context.t
      .http()
      .post('/api/identity/auth/user/register')
      .set('x-forwarded-for', '192.0.2.77')
      .set('idempotency-key', 'register-1')
      .send(body);
  const first = await post();
  t.is(first.status, 201, JSON.stringify(first.body));
  const second = await post();
  t.is(second.status, 201);
  t.is(second.headers['idempotent-replayed'], 'true');
  t.deepEqual(second.body, first.body);
  const stored = await t.context.t.db.pool.one(sql.type(z.object({ principal: z.string(), row: z.string() }))`
    SELECT principal, row_to_json(k)::text AS row FROM idempotency_keys k WHERE key = 'register-1'`);
  // The client's address as the limiter sees it (the test config trusts one proxy hop).
  t.is(stored.principal, 'ip:192.0.2.77');
  t.false(stored.row.includes(body.password));
});

test("two clients without credentials never see each other's Idempotency-Key: no replay, no 422 across addresses", async (t) => {
  const server = request(t.context.t.rebuild({ config: testConfig({ trustProxyHops: 1 }) }).callback());
  const register = (address: string, email: string) =>
    server
      .post('/api/identity/auth/user/register')
      .set('x-forwarded-for', address)
      .set('idempotency-key', 'shared-guess-1')
      .send({ email, password: 'a-long-password-123', name: 'Scoped', organizationName: `Org of ${email}` });
  const first = await register('198.51.100.10', 'scoped-first@demo.test');
  t.is(first.status, 201, JSON.stringify(first.body));
  // Another address, another body, the same key: its own request, neither a 422 nor the first answer.
  const other = await register('198.51.100.11', 'scoped-other@demo.test');
  t.is(other.status, 201, JSON.stringify(other.body));
  t.is(other.headers['idempotent-replayed'], undefined);
  t.notDeepEqual(other.body, first.body);
  // Another address with the very body of the first: not a replay of the first client's answer either.
  const copy = await register('198.51.100.12', 'scoped-first@demo.test');
  t.is(copy.headers['idempotent-replayed'], undefined);
  t.not(copy.status, 201);
  // The first client still gets its own answer replayed.
  const again = await register('198.51.100.10', 'scoped-first@demo.test');
  t.is(again.headers['idempotent-replayed'], 'true');
  t.deepEqual(again.body, first.body);
  const principals = await t.context.t.db.pool.anyFirst(sql.type(z.object({ principal: z.string() }))`
    SELECT principal FROM idempotency_keys WHERE key = 'shared-guess-1' ORDER BY principal`);
  t.deepEqual(principals, ['ip:198.51.100.10', 'ip:198.51.100.11']);
});
