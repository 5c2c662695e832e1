import anyTest from 'ava';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TEST_JWT_SECRET, withTestApp } from '../helpers/app.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import { startFakeOAuth, type FakeOAuth } from '../mcp-oauth/fake-servers.ts';
import { streamableHandler } from './mcp-peers.ts';
import { refreshRequests } from './oauth-connected.ts';
import { addServer, detailOf, owner, serversPath, toolsOf, type T } from './routes.ts';

const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

/** The fake OAuth server's resource answers MCP (an SDK server) to the access tokens it issued, else 401. */
async function oauthPeer(t: T): Promise<{ fake: FakeOAuth; listCalls: (string | undefined)[] }> {
  const listCalls: (string | undefined)[] = [];
  const handle = streamableHandler({}, listCalls);
  const fake = await startFakeOAuth({
    routes: {
      'POST /mcp': (req, res, self) => {
        const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
        if (self.validAccessTokens.has(token)) return void handle(req, res);
        const challenge = `Bearer resource_metadata="${self.resourceOrigin}/.well-known/oauth-protected-resource/mcp"`;
        res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      },
    },
  });
  t.teardown(() => fake.close());
  return { fake, listCalls };
}

/** An oauth catalog variant for the fake, added to the agent and authorized through initiate and callback. */
async function connect(t: T, fake: FakeOAuth, auth: string, name: string): Promise<string> {
  const admin = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  const entry = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', admin)
    .send({
      name,
      tags: ['test'],
      variants: [{ type: 'oauth', url: fake.resourceUrl, transportType: 'http', credentialSchema: { type: 'oauth', fields: [] } }],
    })
    .expect(201);
  const serverId = await addServer(t, auth, { availableMcpId: entry.body.id, variantType: 'oauth', transportType: undefined });
  const before = await toolsOf(t, auth, serverId).expect(409);
  t.is(before.body.errorCode, 'MCP.AUTHORIZATION_REQUIRED');
  t.is((await detailOf(t, auth, serverId)).status, 'needs_authorization');
  const initiated = await t.context.t.http().post(`${serversPath}/${serverId}/oauth/initiate`).set('authorization', auth).expect(200);
  const redirect = await fake.authorize(initiated.body.authorizationUrl);
  await t.context.t.http().get(`/api/ai/mcp-oauth/callback?${redirect}`).set('authorization', auth).expect(200);
  t.is((await detailOf(t, auth, serverId)).status, 'connected');
  return serverId;
}

test('a server behind the OAuth server is listed with its access token; a rejected token is refreshed once and retried', async (t) => {
  const { fake } = await oauthPeer(t);
  const auth = await owner(t);
  const serverId = await connect(t, fake, auth, 'OAuth peer');
  const listed = await toolsOf(t, auth, serverId).expect(200);
  t.is(listed.body.tools.length, 3);

  // The MCP server forgets the token (revoked early): one refresh, one retry, success.
  fake.validAccessTokens.clear();
  const again = await toolsOf(t, auth, serverId, '?refresh=true').expect(200);
  t.is(again.body.tools.length, 3);
  t.is(refreshRequests({ fake }).length, 1);
  t.is((await detailOf(t, auth, serverId)).status, 'connected');

  // Refused again after the refresh: reauthorization is required.
  fake.validAccessTokens.clear();
  fake.revokeRefreshTokens();
  const refused = await toolsOf(t, auth, serverId, '?refresh=true').expect(502);
  t.is(refused.body.errorCode, 'MCP.SERVER_UNAUTHORIZED');
  t.like(refused.body.metadata, { status: 'reauthorization_required' });
  t.is((await detailOf(t, auth, serverId)).status, 'reauthorization_required');
});

test('20 concurrent tool listings on two instances with an expired token cause one token request and all succeed', async (t) => {
  const { fake, listCalls } = await oauthPeer(t);
  const auth = await owner(t);
  const serverId = await connect(t, fake, auth, 'OAuth concurrent');
  fake.tokenDelayMs = 200;
  // Two instances over one database: ten callers each join their instance's refresh, and the
  // second instance's refresh waits on the row lock and then finds the first one's tokens.
  const at = new Date(Date.now() + 2 * 3600_000);
  const later = () => t.context.t.rebuild({ config: oauthTestConfig(), clock: () => at });
  const instances = [later(), later()];
  // The owner's access token, issued at the instances' time (it expires by their clock).
  const iat = Math.floor(at.getTime() / 1000);
  const claims = jwt.decode(auth.slice('Bearer '.length)) as Record<string, unknown>;
  const laterAuth = `Bearer ${jwt.sign({ ...claims, iat, exp: iat + 900 }, TEST_JWT_SECRET, { algorithm: 'HS256' })}`;
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      request(instances[i % 2]!.callback())
        .get(`${serversPath}/${serverId}/tools?refresh=true`)
        .set('authorization', laterAuth),
    ),
  );
  t.deepEqual(
    responses.map((response) => response.status),
    Array(20).fill(200),
  );
  t.is(refreshRequests({ fake }).length, 1);
  t.is(listCalls.length, 20);
});
