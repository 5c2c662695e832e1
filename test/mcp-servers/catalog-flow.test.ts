import anyTest, { type ExecutionContext } from 'ava';
import request from 'supertest';
import { sql } from 'slonik';
import { z } from 'zod';
import { openJson } from '../../app/crypto/credentials.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const support = AGENTS.support.id;
const research = AGENTS.research.id;
const SECRET = 'tok-SECRET-4f9a21';

const entryBody = (name: string) => ({
  name,
  tags: ['test'],
  variants: [
    { type: 'free', url: 'https://1.1.1.1/free', transportType: 'http', credentialSchema: { type: 'free', fields: [] } },
    {
      type: 'apikey',
      url: 'https://1.1.1.1/keyed',
      transportType: 'http',
      credentialSchema: {
        type: 'apikey',
        fields: [
          { key: 'Authorization', label: 'API key', type: 'header', required: true, valueTemplate: 'Bearer {value}' },
          { key: 'X-Workspace', label: 'Workspace', type: 'header', required: true },
          { key: 'region', label: 'Region', type: 'text', required: false, default: 'eu' },
        ],
      },
    },
    { type: 'oauth', url: 'https://8.8.8.8/oauth', transportType: 'sse', credentialSchema: { type: 'oauth', fields: [] } },
  ],
});

type Ctx = ExecutionContext<TestContext>;

async function createEntry(t: Ctx, name: string): Promise<string> {
  const admin = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  const response = await t.context.t.http().post('/api/available-mcps').set('authorization', admin).send(entryBody(name)).expect(201);
  return response.body.id as string;
}

async function owner(t: Ctx) {
  return `Bearer ${await t.context.t.login('owner@demo.test')}`;
}

const StoredRow = z.object({
  credentials: z.instanceof(Buffer).nullable(),
  keyId: z.string().nullable(),
  organizationId: z.string(),
  availableMcpId: z.string().nullable(),
});
const storedRow = (t: Ctx, id: string) =>
  t.context.t.db.pool.one(sql.type(StoredRow)`
    SELECT credentials, credentials_key_id AS "keyId", organization_id AS "organizationId", available_mcp_id AS "availableMcpId"
    FROM agent_mcp_servers WHERE id = ${id}`);

test('a free variant is added with auth type none and the variant URL and transport', async (t) => {
  const entryId = await createEntry(t, 'Flow Free');
  const auth = await owner(t);
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Docs', availableMcpId: entryId, variantType: 'free' })
    .expect(201);
  t.deepEqual(Object.keys(response.body).sort(), [
    'agentId',
    'authType',
    'availableMcpId',
    'createdAt',
    'hasCredentials',
    'id',
    'lastCheckedAt',
    'name',
    'status',
    'transportType',
    'url',
    'variantType',
  ]);
  t.like(response.body, {
    agentId: support,
    name: 'Docs',
    url: 'https://1.1.1.1/free',
    transportType: 'http',
    authType: 'none',
    availableMcpId: entryId,
    variantType: 'free',
    hasCredentials: false,
  });
  const list = await t.context.t.http().get(`/api/ai/agents/${support}/mcp-servers`).set('authorization', auth).expect(200);
  t.deepEqual(
    list.body.filter((s: { id: string }) => s.id === response.body.id),
    [response.body],
  );
});

test('an apikey variant stores its credentials encrypted, bound to agency and server, and never returns them', async (t) => {
  const entryId = await createEntry(t, 'Flow Key');
  const auth = await owner(t);
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', auth)
    .send({
      name: 'Keyed',
      availableMcpId: entryId,
      variantType: 'apikey',
      url: 'https://1.1.1.1/keyed',
      credentials: { Authorization: SECRET, 'X-Workspace': 'acme' },
    })
    .expect(201);
  t.like(response.body, { authType: 'static_headers', variantType: 'apikey', hasCredentials: true, url: 'https://1.1.1.1/keyed' });

  const row = await storedRow(t, response.body.id);
  t.truthy(row.credentials);
  t.false(row.credentials!.toString('latin1').includes(SECRET));
  t.false(row.credentials!.toString('latin1').includes('acme'));
  const keyring = testConfig().credentialsKeyring;
  t.is(row.keyId, keyring.current.id);
  // The header value is built from the template: the user pasted only the token.
  t.deepEqual(
    openJson(keyring, { keyId: row.keyId!, ciphertext: row.credentials! }, `agency:${row.organizationId}/server:${response.body.id}`),
    {
      headers: { Authorization: `Bearer ${SECRET}`, 'X-Workspace': 'acme' },
      values: { region: 'eu' },
    },
  );
  t.throws(() =>
    openJson(
      keyring,
      { keyId: row.keyId!, ciphertext: row.credentials! },
      `agency:${row.organizationId}/server:01900000-0000-7000-8000-000000000000`,
    ),
  );

  const list = await t.context.t.http().get(`/api/ai/agents/${support}/mcp-servers`).set('authorization', auth).expect(200);
  t.false(JSON.stringify(response.body).includes(SECRET));
  t.false(JSON.stringify(list.body).includes(SECRET));
  t.false(t.context.t.logs.text().includes(SECRET));
});

test('a token pasted with its prefix is not prefixed twice', async (t) => {
  const entryId = await createEntry(t, 'Flow Prefix');
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', await owner(t))
    .send({
      name: 'Prefixed',
      availableMcpId: entryId,
      variantType: 'apikey',
      credentials: { Authorization: 'Bearer abc', 'X-Workspace': 'w' },
    })
    .expect(201);
  const row = await storedRow(t, response.body.id);
  const opened = openJson<{ headers: Record<string, string> }>(
    testConfig().credentialsKeyring,
    { keyId: row.keyId!, ciphertext: row.credentials! },
    `agency:${row.organizationId}/server:${response.body.id}`,
  );
  t.is(opened.headers.Authorization, 'Bearer abc');
});

test('an oauth variant is added without credentials and with auth type oauth', async (t) => {
  const entryId = await createEntry(t, 'Flow OAuth');
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', await owner(t))
    .send({ name: 'Tickets', availableMcpId: entryId, variantType: 'oauth' })
    .expect(201);
  t.like(response.body, {
    authType: 'oauth',
    variantType: 'oauth',
    hasCredentials: false,
    transportType: 'sse',
    url: 'https://8.8.8.8/oauth',
  });
});

test('missing required credentials are a 422 naming every missing field, and nothing is saved', async (t) => {
  // The research agent is used by this test only, so the counts are not disturbed by concurrent tests.
  const entryId = await createEntry(t, 'Flow Missing');
  const auth = await owner(t);
  const before = await t.context.t.http().get(`/api/ai/agents/${research}/mcp-servers`).set('authorization', auth).expect(200);
  const none = await t.context.t
    .http()
    .post(`/api/ai/agents/${research}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'K', availableMcpId: entryId, variantType: 'apikey' })
    .expect(422);
  t.deepEqual(none.body.missingFields, ['Authorization', 'X-Workspace']);
  t.is(none.body.statusCode, 422);
  t.is(typeof none.body.message, 'string');
  const blank = await t.context.t
    .http()
    .post(`/api/ai/agents/${research}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'K', availableMcpId: entryId, variantType: 'apikey', credentials: { Authorization: '  ', 'X-Workspace': 'w' } })
    .expect(422);
  t.deepEqual(blank.body.missingFields, ['Authorization']);
  const after = await t.context.t.http().get(`/api/ai/agents/${research}/mcp-servers`).set('authorization', auth).expect(200);
  t.is(after.body.length, before.body.length);
});

test('catalog mistakes: unknown or deleted entry 404, variant not offered, unknown credential key or another URL 400', async (t) => {
  const entryId = await createEntry(t, 'Flow Mistakes');
  const auth = await owner(t);
  const post = (body: object) =>
    t.context.t
      .http()
      .post(`/api/ai/agents/${support}/mcp-servers`)
      .set('authorization', auth)
      .send({ name: 'X', ...body });
  t.deepEqual((await post({ availableMcpId: '01900000-0000-7000-8000-00000000beef', variantType: 'free' }).expect(404)).body, {
    statusCode: 404,
    message: 'Catalog entry not found',
  });
  t.deepEqual((await post({ availableMcpId: entryId }).expect(400)).body.errors, [{ path: ['variantType'], message: 'Required' }]);
  t.deepEqual(
    (await post({ availableMcpId: entryId, variantType: 'oauth', credentials: { token: 'x' } }).expect(400)).body.errors.map(
      (e: { path: string[] }) => e.path,
    ),
    [['credentials', 'token']],
  );
  t.deepEqual(
    (await post({ availableMcpId: entryId, variantType: 'free', url: 'https://1.1.1.1/elsewhere' }).expect(400)).body.errors.map(
      (e: { path: string[] }) => e.path,
    ),
    [['url']],
  );
  const admin = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  await t.context.t
    .http()
    .patch(`/api/available-mcps/${entryId}`)
    .set('authorization', admin)
    .send({ variants: [entryBody('x').variants[0]] })
    .expect(200);
  t.deepEqual((await post({ availableMcpId: entryId, variantType: 'apikey' }).expect(400)).body.errors, [
    { path: ['variantType'], message: 'is not offered by this catalog entry (offers: free)' },
  ]);
  await t.context.t.http().delete(`/api/available-mcps/${entryId}`).set('authorization', admin).expect(200);
  await post({ availableMcpId: entryId, variantType: 'free' }).expect(404);
});

test('an agent of another agency is answered 404 AI.AGENT_NOT_FOUND, and a user without the policy 403', async (t) => {
  const entryId = await createEntry(t, 'Flow Tenancy');
  const other = `Bearer ${await t.context.t.login('owner@other.test')}`;
  const body = { name: 'X', availableMcpId: entryId, variantType: 'free' };
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', other)
    .send(body)
    .expect(404);
  t.deepEqual(response.body, {
    statusCode: 404,
    errorCode: 'AI.AGENT_NOT_FOUND',
    message: { en: 'Agent not found', es: 'Agente no encontrado' },
  });
  await t.context.t.http().get(`/api/ai/agents/${support}/mcp-servers`).set('authorization', other).expect(404);
  const member = `Bearer ${await t.context.t.login('member@demo.test')}`;
  await t.context.t.http().post(`/api/ai/agents/${support}/mcp-servers`).set('authorization', member).send(body).expect(403);
});

test('private, link-local and metadata URLs are refused with 400; http to loopback only in development', async (t) => {
  const auth = await owner(t);
  const post = (url: string) =>
    t.context.t
      .http()
      .post(`/api/ai/agents/${support}/mcp-servers`)
      .set('authorization', auth)
      .send({ name: 'Custom', url, transportType: 'http' });
  for (const url of [
    'https://10.0.0.7/mcp',
    'https://169.254.169.254/latest',
    'https://metadata.google.internal/',
    'https://[fd00::1]/',
    'http://127.0.0.1:8080/mcp',
    'http://1.1.1.1/mcp',
  ]) {
    const response = await post(url).expect(400);
    t.deepEqual(
      response.body.errors.map((e: { path: string[] }) => e.path),
      [['url']],
      url,
    );
  }
  const development = t.context.t.rebuild({ config: testConfig({ nodeEnv: 'development' }) });
  const local = await request(development.callback())
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Local', url: 'http://127.0.0.1:8080/mcp', transportType: 'http' })
    .expect(201);
  t.like(local.body, { url: 'http://127.0.0.1:8080/mcp', authType: 'none', availableMcpId: null, variantType: null });
  await request(development.callback())
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Private', url: 'http://192.168.1.2/mcp', transportType: 'http' })
    .expect(400);
});

test('removing a catalog entry row nulls the reference of the servers made from it', async (t) => {
  const entryId = await createEntry(t, 'Flow Removed');
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', await owner(t))
    .send({ name: 'Soon orphaned', availableMcpId: entryId, variantType: 'free' })
    .expect(201);
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM available_mcps WHERE id = ${entryId}`);
  t.is((await storedRow(t, response.body.id)).availableMcpId, null);
});

test('DELETE removes a server with 204; an unknown server is 404', async (t) => {
  const entryId = await createEntry(t, 'Flow Delete');
  const auth = await owner(t);
  const created = await t.context.t
    .http()
    .post(`/api/ai/agents/${support}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Gone', availableMcpId: entryId, variantType: 'free' })
    .expect(201);
  const other = `Bearer ${await t.context.t.login('owner@other.test')}`;
  await t.context.t.http().delete(`/api/ai/agents/${support}/mcp-servers/${created.body.id}`).set('authorization', other).expect(404);
  const gone = await t.context.t
    .http()
    .delete(`/api/ai/agents/${support}/mcp-servers/${created.body.id}`)
    .set('authorization', auth)
    .expect(204);
  t.is(gone.text, '');
  const again = await t.context.t
    .http()
    .delete(`/api/ai/agents/${support}/mcp-servers/${created.body.id}`)
    .set('authorization', auth)
    .expect(404);
  t.deepEqual(again.body, { statusCode: 404, message: 'MCP server not found' });
  const list = await t.context.t.http().get(`/api/ai/agents/${support}/mcp-servers`).set('authorization', auth).expect(200);
  t.false(list.body.some((s: { id: string }) => s.id === created.body.id));
});
