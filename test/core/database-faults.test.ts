import anyTest, { type ExecutionContext } from 'ava';
import pg from 'pg';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const UNAVAILABLE = {
  statusCode: 503,
  errorCode: 'CORE.SERVICE_UNAVAILABLE',
  message: {
    en: 'The service is temporarily unavailable. Try again in 1 second.',
    es: 'El servicio no está disponible temporalmente. Inténtalo de nuevo en 1 segundo.',
  },
  metadata: { retryAfterSeconds: 1 },
};

/** A connection of the test's own to this file's database, to hold locks and terminate backends. */
async function controller(t: ExecutionContext<TestContext>) {
  const client = new pg.Client({ connectionString: t.context.t.db.url });
  await client.connect();
  t.teardown(() => client.end());
  const database = t.context.t.db.name;
  return {
    query: (text: string, values: unknown[] = []) => client.query(text, values),
    /**
     * Waits until a backend of this database other than `exclude` is blocked on a lock. Only the app's pool and this
     * connection use the database. (`query` is not matched: while a statement waits in parse analysis under the
     * extended protocol, pg_stat_activity may still show the previous one.)
     */
    async waitingBackend(exclude: number[] = []): Promise<number> {
      for (let i = 0; i < 500; i++) {
        // Activity is read once per transaction, and this connection holds its locks in one: take a new reading.
        await client.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await client.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND NOT (pid = ANY($2::int[]))`,
          [database, exclude],
        );
        if (rows[0]) return rows[0].pid;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const { rows: all } = await client.query(
        'SELECT pid, datname, state, wait_event_type, left(query, 120) AS q FROM pg_stat_activity WHERE datname = $1',
        [database],
      );
      throw new Error(`no backend waited on a lock: ${JSON.stringify(all)}`);
    },
    /** pg_terminate_backend, only ever for a backend of this file's own database. */
    async terminate(pid: number) {
      const { rows } = await client.query(
        'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE pid = $1 AND datname = $2',
        [pid, database],
      );
      if (!rows[0]?.done) throw new Error(`backend ${pid} was not terminated`);
    },
  };
}

const toolsPath = `/api/ai/agents/${AGENTS.support.id}/tools`;
const toolSet = [{ toolName: 'web_search', permissionStatus: 'always_allow', providerKey: 'web' }];

test.serial('a read whose connection is terminated mid-request is retried once on a fresh connection and answers 200', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  await t.context.t.http().put(toolsPath).set('authorization', `Bearer ${token}`).send({ tools: toolSet }).expect(200);
  const db = await controller(t);
  await db.query('BEGIN');
  // The agent lookup goes through; the read of the tool set then waits for this lock.
  await db.query('LOCK TABLE agent_tool_permissions IN ACCESS EXCLUSIVE MODE');
  const pending = t.context.t
    .http()
    .get(toolsPath)
    .set('authorization', `Bearer ${token}`)
    .then((response) => response);
  const first = await db.waitingBackend();
  await db.terminate(first);
  const second = await db.waitingBackend([first]);
  t.not(second, first);
  await db.query('ROLLBACK');
  const response = await pending;
  t.is(response.status, 200);
  t.deepEqual(response.body, { agentId: AGENTS.support.id, tools: toolSet });
});

test.serial('a read that loses its connection twice answers 503 CORE.SERVICE_UNAVAILABLE with Retry-After, never 500', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const db = await controller(t);
  await db.query('BEGIN');
  await db.query('LOCK TABLE agent_tool_permissions IN ACCESS EXCLUSIVE MODE');
  const pending = t.context.t
    .http()
    .get(toolsPath)
    .set('authorization', `Bearer ${token}`)
    .then((response) => response);
  const first = await db.waitingBackend();
  await db.terminate(first);
  await db.terminate(await db.waitingBackend([first]));
  const response = await pending;
  await db.query('ROLLBACK');
  t.is(response.status, 503);
  t.deepEqual(response.body, UNAVAILABLE);
  t.is(response.headers['retry-after'], '1');
  // The next request gets a healthy connection again.
  t.is((await t.context.t.http().get(toolsPath).set('authorization', `Bearer ${token}`)).status, 200);
});

test.serial('a write transaction cut off mid-way answers 503, is not retried, and leaves nothing behind', async (t) => {
  const db = await controller(t);
  const email = 'cut-off@example.test';
  const body = { email, password: 'a-long-password-1', name: 'Cut Off', organizationName: 'Half Done Agency' };
  // An uncommitted account with the same email: the registration inserts its organization, then waits on the unique email.
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO users (id, organization_id, type, email, name) VALUES ('01900000-0000-7000-8000-0000000000aa', $1, 'user', $2, 'Blocker')`,
    [ORGANIZATIONS.demoAgency.id, email],
  );
  const pending = t.context.t
    .http()
    .post('/api/identity/auth/user/register')
    .send(body)
    .then((response) => response);
  const writer = await db.waitingBackend();
  const organizationsDuring = await db.query('SELECT count(*)::int AS n FROM organizations');
  await db.terminate(writer);
  // A second attempt would wait on the same lock; the answer comes while the lock is still held.
  const response = await pending;
  await db.query('ROLLBACK');
  t.is(response.status, 503);
  t.deepEqual(response.body, UNAVAILABLE);
  t.is(response.headers['retry-after'], '1');
  const organizations = await db.query('SELECT count(*)::int AS n FROM organizations WHERE name = $1', [body.organizationName]);
  const users = await db.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
  t.deepEqual([organizations.rows[0].n, users.rows[0].n], [0, 0]);
  t.true(organizationsDuring.rows[0].n > 0);
  // Nothing half-done stands in the way: sending the same request again succeeds.
  const again = await t.context.t.http().post('/api/identity/auth/user/register').send(body);
  t.is(again.status, 201);
});

test.serial('the lost connection is logged once, as the cause of the 503, and the response carries no SQL', async (t) => {
  const db = await controller(t);
  const token = await t.context.t.login('owner@demo.test');
  await db.query('BEGIN');
  await db.query('LOCK TABLE agent_tool_permissions IN ACCESS EXCLUSIVE MODE');
  const before = t.context.t.logs.lines.length;
  const pending = t.context.t
    .http()
    .get(`${toolsPath}/effective`)
    .set('authorization', `Bearer ${token}`)
    .then((response) => response);
  const first = await db.waitingBackend();
  await db.terminate(first);
  await db.terminate(await db.waitingBackend([first]));
  const response = await pending;
  await db.query('ROLLBACK');
  t.is(response.status, 503);
  t.false(JSON.stringify(response.body).includes('SELECT'));
  const entries = t.context.t.logs.entries.slice(before);
  const errors = entries.filter((entry) => entry.err !== undefined);
  t.is(errors.length, 1);
  t.regex(JSON.stringify(errors[0]), /terminating connection due to administrator command/);
  t.is(entries.filter((entry) => entry.status === 503).length, 1);
});
