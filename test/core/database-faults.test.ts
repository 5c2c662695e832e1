import anyTest from 'ava';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { backendControl as controller } from '../helpers/backend-control.ts';

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
