import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { openJson } from '../../app/crypto/credentials.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';

// NODE_ENV=test: the URL policy refuses loopback; public literal addresses need no DNS.
const test = withTestApp(anyTest);

type T = ExecutionContext<TestContext>;
const agent = AGENTS.support.id;
const serversPath = `/api/ai/agents/${agent}/mcp-servers`;

const keyedEntry = (name: string, url = 'https://1.1.1.1/keyed') => ({
  name,
  tags: ['test'],
  variants: [
    {
      type: 'apikey',
      url,
      transportType: 'http',
      credentialSchema: {
        type: 'apikey',
        fields: [
          { key: 'Authorization', label: 'API key', type: 'header', required: true, valueTemplate: 'Bearer {value}' },
          { key: 'X-Workspace', label: 'Workspace', type: 'header', required: true },
        ],
      },
    },
    { type: 'oauth', url: 'https://8.8.8.8/oauth', transportType: 'http', credentialSchema: { type: 'oauth', fields: [] } },
  ],
});

const owner = async (t: T) => `Bearer ${await t.context.t.login('owner@demo.test')}`;
const admin = async (t: T) => `Bearer ${await t.context.t.login('admin@platform.test')}`;
const patch = (t: T, auth: string, serverId: string, body: unknown) =>
  t.context.t
    .http()
    .patch(`${serversPath}/${serverId}`)
    .set('authorization', auth)
    .send(body as object);

async function sealedHeaders(t: T, serverId: string) {
  const row = await t.context.t.db.pool.one(sql.type(z.object({ keyId: z.string(), sealed: z.instanceof(Buffer) }))`
    SELECT credentials_key_id AS "keyId", credentials AS sealed FROM agent_mcp_servers WHERE id = ${serverId}`);
  return openJson<{ headers: Record<string, string> }>(
    t.context.t.app.deps.config.credentialsKeyring,
    { keyId: row.keyId, ciphertext: row.sealed },
    `agency:${ORGANIZATIONS.demoAgency.id}/server:${serverId}`,
  ).headers;
}

test.serial('renaming and moving a custom server keeps the permissions and overrides of its tools', async (t) => {
  const auth = await owner(t);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'Custom', url: 'https://1.1.1.1/mcp', transportType: 'http' })
    .expect(201);
  const serverId = created.body.id as string;
  const tools = [
    { toolName: 'lookup', permissionStatus: 'needs_approval', providerKey: `mcp:${serverId}` },
    { toolName: 'delete_all', permissionStatus: 'blocked', providerKey: `mcp:${serverId}` },
  ];
  await t.context.t.http().put(`/api/ai/agents/${agent}/tools`).set('authorization', auth).send({ tools }).expect(200);
  await t.context.t
    .http()
    .post(`/api/ai/agents/${agent}/tool-overrides`)
    .set('authorization', auth)
    .send({ toolName: 'lookup' })
    .expect(200);

  const changed = await patch(t, auth, serverId, { name: ' Renamed ', url: 'https://8.8.4.4/mcp' }).expect(200);
  t.like(changed.body, {
    id: serverId,
    name: 'Renamed',
    url: 'https://8.8.4.4/mcp',
    authType: 'none',
    status: 'unknown',
    lastCheckedAt: null,
  });
  t.is(changed.body.createdAt, created.body.createdAt);

  const kept = await t.context.t.http().get(`/api/ai/agents/${agent}/tools`).set('authorization', auth).expect(200);
  t.deepEqual(kept.body.tools, tools);
  const overrides = await t.context.t.http().get(`/api/ai/agents/${agent}/tool-overrides`).set('authorization', auth).expect(200);
  t.true(JSON.stringify(overrides.body).includes('"lookup"'));
  const detail = await t.context.t.http().get(`${serversPath}/${serverId}`).set('authorization', auth).expect(200);
  t.deepEqual(detail.body, changed.body);
});

test('a custom server gains and loses header credentials with PATCH', async (t) => {
  const auth = await owner(t);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'Custom', url: 'https://1.1.1.1/mcp', transportType: 'http' })
    .expect(201);
  const keyed = await patch(t, auth, created.body.id, { credentials: { 'X-Api-Key': ' new-key ' } }).expect(200);
  t.like(keyed.body, { authType: 'static_headers', hasCredentials: true });
  t.deepEqual(await sealedHeaders(t, created.body.id), { 'X-Api-Key': 'new-key' });
  t.false(JSON.stringify(keyed.body).includes('new-key'));
  const cleared = await patch(t, auth, created.body.id, { credentials: {} }).expect(200);
  t.like(cleared.body, { authType: 'none', hasCredentials: false });
});

test('rotating the API key of a catalog server follows the variant rules: 400 unknown key, 422 missing, 200 sealed', async (t) => {
  const auth = await owner(t);
  const entry = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(keyedEntry('Keyed rotate'))
    .expect(201);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({
      name: 'Keyed',
      availableMcpId: entry.body.id,
      variantType: 'apikey',
      credentials: { Authorization: 'old', 'X-Workspace': 'w1' },
    })
    .expect(201);
  const serverId = created.body.id as string;

  const unknown = await patch(t, auth, serverId, { credentials: { Authorization: 'k', 'X-Other': 'x' } }).expect(400);
  t.deepEqual(unknown.body.errors, [{ path: ['credentials', 'X-Other'], message: 'is not a credential field of the apikey variant' }]);
  const missing = await patch(t, auth, serverId, { credentials: { Authorization: 'new' } }).expect(422);
  t.deepEqual(missing.body.missingFields, ['X-Workspace']);
  t.deepEqual(await sealedHeaders(t, serverId), { Authorization: 'Bearer old', 'X-Workspace': 'w1' });

  const rotated = await patch(t, auth, serverId, { credentials: { Authorization: 'new', 'X-Workspace': 'w2' } }).expect(200);
  t.like(rotated.body, { authType: 'static_headers', hasCredentials: true, variantType: 'apikey', status: 'unknown' });
  t.deepEqual(await sealedHeaders(t, serverId), { Authorization: 'Bearer new', 'X-Workspace': 'w2' });

  const moved = await patch(t, auth, serverId, { url: 'https://8.8.4.4/elsewhere' }).expect(400);
  t.deepEqual(moved.body.errors, [{ path: ['url'], message: "must be the catalog variant's URL https://1.1.1.1/keyed" }]);
});

test("an OAuth server moved to its variant's new URL drops its tokens and needs authorization again", async (t) => {
  const auth = await owner(t);
  const adminAuth = await admin(t);
  const entry = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', adminAuth)
    .send(keyedEntry('OAuth moving'))
    .expect(201);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'OAuth', availableMcpId: entry.body.id, variantType: 'oauth' })
    .expect(201);
  t.is(created.body.status, 'needs_authorization');
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO agent_mcp_server_oauth_tokens (server_id, organization_id, issuer, client_id, token_endpoint, resource, key_id, sealed)
    VALUES (${created.body.id}, ${ORGANIZATIONS.demoAgency.id}, 'https://as.example', 'c', 'https://as.example/token', 'https://8.8.8.8/oauth', 't1', '\\x00')`);
  t.is((await t.context.t.http().get(`${serversPath}/${created.body.id}`).set('authorization', auth).expect(200)).body.status, 'unknown');

  const variants = keyedEntry('x').variants.map((v) => (v.type === 'oauth' ? { ...v, url: 'https://8.8.8.8/v2' } : v));
  await t.context.t.http().patch(`/api/available-mcps/${entry.body.id}`).set('authorization', adminAuth).send({ variants }).expect(200);
  const moved = await patch(t, auth, created.body.id, { url: 'https://8.8.8.8/v2' }).expect(200);
  t.like(moved.body, { url: 'https://8.8.8.8/v2', status: 'needs_authorization' });
  const tokens = await t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM agent_mcp_server_oauth_tokens WHERE server_id = ${created.body.id}`);
  t.is(tokens, 0);
});

test('a URL the policy refuses, an empty body and unknown fields are 400s that change nothing', async (t) => {
  const auth = await owner(t);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'Guarded', url: 'https://1.1.1.1/mcp', transportType: 'http' })
    .expect(201);
  const refused = await patch(t, auth, created.body.id, { name: 'Changed', url: 'http://127.0.0.1:9/mcp' }).expect(400);
  t.deepEqual(
    refused.body.errors.map((e: { path: string[] }) => e.path),
    [['url']],
  );
  const metadata = await patch(t, auth, created.body.id, { url: 'https://169.254.169.254/latest' }).expect(400);
  t.is(metadata.body.message, 'Validation failed');
  await patch(t, auth, created.body.id, {}).expect(400);
  const extra = await patch(t, auth, created.body.id, { transportType: 'sse' }).expect(400);
  t.is(extra.body.message, 'Validation failed');
  const after = await t.context.t.http().get(`${serversPath}/${created.body.id}`).set('authorization', auth).expect(200);
  t.deepEqual(after.body, created.body);
});

test("another agency's server, an unknown server and a member without update are refused", async (t) => {
  const auth = await owner(t);
  const created = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'Mine', url: 'https://1.1.1.1/mcp', transportType: 'http' })
    .expect(201);
  const other = `Bearer ${await t.context.t.login('owner@other.test')}`;
  const foreign = await patch(t, other, created.body.id, { name: 'Taken' }).expect(404);
  t.is(foreign.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const unknown = await patch(t, auth, '01900000-0000-7000-8000-00000000ffff', { name: 'X' }).expect(404);
  t.deepEqual(unknown.body, { statusCode: 404, message: 'MCP server not found' });
  const member = `Bearer ${await t.context.t.login('member@demo.test')}`;
  await patch(t, member, created.body.id, { name: 'X' }).expect(403);
  const after = await t.context.t.http().get(`${serversPath}/${created.body.id}`).set('authorization', auth).expect(200);
  t.is(after.body.name, 'Mine');
});
