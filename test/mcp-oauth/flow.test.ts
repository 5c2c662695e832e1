import { createHash } from 'node:crypto';
import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { openJson } from '../../app/crypto/credentials.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { insertOAuthServer, startFakeOAuth } from './fake-servers.ts';
import { callback, initiate, initiatePath, oauthTestConfig, startWithServer } from './context.ts';

const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

const TokenRow = z.object({ keyId: z.string(), sealed: z.instanceof(Buffer), rowText: z.string() });

test('an OAuth MCP server is connected end to end and its tokens are stored encrypted', async (t) => {
  const started = await startWithServer(t);
  // The app's clock stands still for the initiate: the state's lifetime is read exactly.
  const now = new Date();
  const initiated = await initiate(t, started, t.context.t.rebuild({ clock: () => now })).expect(200);
  t.deepEqual(Object.keys(initiated.body).sort(), ['authorizationUrl', 'browserKey', 'expiresAt', 'state']);
  t.true(initiated.body.authorizationUrl.startsWith(`${started.fake.issuer}/authorize?`));
  t.is(Date.parse(initiated.body.expiresAt) - now.getTime(), 10 * 60_000, 'the state lives 10 minutes');

  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  t.is(redirect.get('state'), initiated.body.state);
  // Authorization servers may add parameters of their own; they are ignored.
  redirect.set('session_state', 'opaque-as-value');
  // The callback's clock stands still too: the token's expiry is that instant plus the server's expires_in.
  const done = await callback(t, redirect, started.token, t.context.t.rebuild({ clock: () => now })).expect(200);
  t.is(done.body.agentId, AGENTS.support.id);
  t.is(done.body.serverId, started.serverId);
  t.is(done.body.connected, true);
  t.is(done.body.scope, 'mcp:read');
  t.is(Date.parse(done.body.expiresAt), now.getTime() + 3600_000);
  t.false(JSON.stringify(done.body).includes(started.fake.issuedAccessTokens[0]!));

  const row = await t.context.t.db.pool.one(sql.type(TokenRow)`
    SELECT key_id AS "keyId", sealed, row_to_json(t)::text AS "rowText"
    FROM agent_mcp_server_oauth_tokens t WHERE server_id = ${started.serverId}`);
  const accessToken = started.fake.issuedAccessTokens[0]!;
  const refreshToken = started.fake.issuedRefreshTokens[0]!;
  for (const secret of [accessToken, refreshToken]) {
    t.false(row.sealed.includes(Buffer.from(secret)), 'no plaintext token in the ciphertext');
    t.false(row.rowText.includes(secret), 'no plaintext token anywhere in the row');
  }
  const opened = openJson<{ accessToken: string; refreshToken: string; scope: string }>(
    t.context.t.app.deps.config.credentialsKeyring,
    { keyId: row.keyId, ciphertext: row.sealed },
    `agency:${ORGANIZATIONS.demoAgency.id}/server:${started.serverId}/oauth-tokens`,
  );
  t.is(opened.accessToken, accessToken);
  t.is(opened.refreshToken, refreshToken);
  t.is(opened.scope, 'mcp:read');
  t.false(t.context.t.logs.text().includes(accessToken));
  t.false(t.context.t.logs.text().includes(initiated.body.state));
});

test('the resource is sent on the authorize URL and the token request, and the PKCE S256 challenge matches the verifier', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const authorizeQuery = new URL(initiated.body.authorizationUrl).searchParams;
  t.is(authorizeQuery.get('response_type'), 'code');
  t.is(authorizeQuery.get('resource'), started.fake.resourceUrl);
  t.is(authorizeQuery.get('code_challenge_method'), 'S256');
  t.is(authorizeQuery.get('redirect_uri'), 'http://localhost:3000/api/ai/mcp-oauth/callback');
  // The scope hint of the 401 challenge wins over the PRM's scopes_supported.
  t.is(authorizeQuery.get('scope'), 'mcp:read mcp:write');

  await callback(t, await started.fake.authorize(initiated.body.authorizationUrl), started.token).expect(200);
  const [tokenRequest] = started.fake.tokenRequests;
  t.is(tokenRequest!.form.get('grant_type'), 'authorization_code');
  t.is(tokenRequest!.form.get('resource'), started.fake.resourceUrl);
  t.is(tokenRequest!.form.get('redirect_uri'), authorizeQuery.get('redirect_uri'));
  const verifier = tokenRequest!.form.get('code_verifier')!;
  t.regex(verifier, /^[A-Za-z0-9._~-]{43,128}$/);
  t.is(authorizeQuery.get('code_challenge'), createHash('sha256').update(verifier).digest('base64url'));
  t.true(tokenRequest!.authorization?.startsWith('Basic '), 'client_secret_basic authentication');
});

test('dynamic client registration sends application_type web, stores the client encrypted and reuses it', async (t) => {
  const started = await startWithServer(t);
  await initiate(t, started).expect(200);
  await initiate(t, started).expect(200);
  t.is(started.fake.registrations.length, 1);
  const registration = started.fake.registrations[0]!;
  t.is(registration.application_type, 'web');
  t.deepEqual(registration.redirect_uris, ['http://localhost:3000/api/ai/mcp-oauth/callback']);
  t.deepEqual(registration.grant_types, ['authorization_code', 'refresh_token']);
  t.deepEqual(registration.response_types, ['code']);

  const rowText = await t.context.t.db.pool.oneFirst(sql.type(z.object({ text: z.string() }))`
    SELECT row_to_json(c)::text AS text FROM mcp_oauth_clients c WHERE issuer = ${started.fake.issuer}`);
  t.false(rowText.includes('client-secret-'), 'the client secret is not stored in plaintext');
});

test('without a challenge header the well-known metadata URI is used and the scope is every supported scope', async (t) => {
  const started = await startWithServer(t, { challenge: false });
  const initiated = await initiate(t, started).expect(200);
  t.true(started.fake.hits.includes('GET /.well-known/oauth-protected-resource/mcp'));
  t.is(new URL(initiated.body.authorizationUrl).searchParams.get('scope'), 'mcp:read mcp:write mcp:admin');
});

test('an issuer without a path is discovered at the root well-known URI', async (t) => {
  const started = await startWithServer(t, { issuerPath: '' });
  const initiated = await initiate(t, started).expect(200);
  t.true(initiated.body.authorizationUrl.startsWith(`${started.fake.asOrigin}/authorize?`));
  await callback(t, await started.fake.authorize(initiated.body.authorizationUrl), started.token).expect(200);
});

test('a client configured for the issuer is used instead of dynamic registration', async (t) => {
  const started = await startWithServer(t, { registration: false });
  const base = oauthTestConfig();
  const app = t.context.t.rebuild({
    config: { ...base, mcpOAuth: { ...base.mcpOAuth, clients: { [started.fake.issuer]: { clientId: 'configured-client' } } } },
  });
  const initiated = await initiate(t, started, app).expect(200);
  t.is(new URL(initiated.body.authorizationUrl).searchParams.get('client_id'), 'configured-client');
  t.is(started.fake.registrations.length, 0);
});

test('an authorization server without registration and no configured client is refused with a clear code', async (t) => {
  const started = await startWithServer(t, { registration: false });
  const response = await initiate(t, started).expect(502);
  t.is(response.body.errorCode, 'MCP_OAUTH.CLIENT_REGISTRATION_UNAVAILABLE');
  t.regex(response.body.message.en, /MCP_OAUTH_CLIENTS/);
});

test('an agent of another agency is answered AI.AGENT_NOT_FOUND and an unknown server a plain 404', async (t) => {
  const started = await startWithServer(t);
  const otherToken = await t.context.t.login('owner@other.test');
  const foreign = await t.context.t.http().post(initiatePath(started.serverId)).set('authorization', `Bearer ${otherToken}`).expect(404);
  t.is(foreign.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const unknown = await t.context.t
    .http()
    .post(initiatePath('01900000-0000-7000-8000-00000000ffff'))
    .set('authorization', `Bearer ${started.token}`)
    .expect(404);
  t.deepEqual(unknown.body, { statusCode: 404, message: 'MCP server not found' });
});

test('a server that does not use OAuth is a 409 and nothing is fetched', async (t) => {
  const started = await startWithServer(t);
  const serverId = await insertOAuthServer(t.context.t.db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    agentId: AGENTS.support.id,
    url: started.fake.resourceUrl,
    authType: 'static_headers',
  });
  const response = await t.context.t.http().post(initiatePath(serverId)).set('authorization', `Bearer ${started.token}`).expect(409);
  t.is(response.body.errorCode, 'MCP_OAUTH.NOT_OAUTH_SERVER');
  t.deepEqual(started.fake.hits, []);
});

test('a user without the agent update policy gets 403 on initiate and callback', async (t) => {
  const started = await startWithServer(t);
  const member = await t.context.t.login('member@demo.test');
  const refused = await t.context.t.http().post(initiatePath(started.serverId)).set('authorization', `Bearer ${member}`);
  t.deepEqual([refused.status, refused.body], [403, { statusCode: 403, message: 'Forbidden' }]);
  const callbackRefused = await t.context.t
    .http()
    .get('/api/ai/mcp-oauth/callback?state=x&code=y')
    .set('authorization', `Bearer ${member}`);
  t.is(callbackRefused.status, 403);
  // Without a token the caller is a browser: it lands on the front-end with the refusal.
  const anonymous = await t.context.t.http().get('/api/ai/mcp-oauth/callback?state=x&code=y');
  t.is(anonymous.status, 303);
  t.is(anonymous.headers.location, 'http://localhost:5173/?mcpOAuth=error&errorCode=MCP_OAUTH.INVALID_STATE');
  t.deepEqual(started.fake.hits, []);
});

test('a server added from an oauth catalog variant is connected through the public routes', async (t) => {
  const fake = await startFakeOAuth();
  t.teardown(() => fake.close());
  const admin = await t.context.t.login('admin@platform.test');
  const entry = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', `Bearer ${admin}`)
    .send({
      name: `Fake OAuth ${fake.asOrigin}`,
      tags: ['test'],
      variants: [{ type: 'oauth', url: fake.resourceUrl, transportType: 'http', credentialSchema: { type: 'oauth', fields: [] } }],
    })
    .expect(201);
  const owner = await t.context.t.login('owner@demo.test');
  const server = await t.context.t
    .http()
    .post(`/api/ai/agents/${AGENTS.research.id}/mcp-servers`)
    .set('authorization', `Bearer ${owner}`)
    .send({ name: 'Fake OAuth', availableMcpId: entry.body.id, variantType: 'oauth' })
    .expect(201);
  t.is(server.body.authType, 'oauth');
  const initiated = await t.context.t
    .http()
    .post(initiatePath(server.body.id, AGENTS.research.id))
    .set('authorization', `Bearer ${owner}`)
    .expect(200);
  const done = await callback(t, await fake.authorize(initiated.body.authorizationUrl), owner).expect(200);
  t.like(done.body, { agentId: AGENTS.research.id, serverId: server.body.id, connected: true });
});
