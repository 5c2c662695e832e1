import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext } from 'ava';
import request from 'supertest';
import type { App } from '../../app/app.ts';
import { validAuthForAgentMcpServer } from '../../app/mcp-client/session.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { refreshRequests } from '../mcp-client/oauth-connected.ts';
import { callback, initiate, oauthTestConfig, startWithServer } from './context.ts';

const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

const DOCUMENT_PATH = '/api/ai/mcp-oauth/client-metadata.json';

/** The app on a real loopback port with PUBLIC_BASE_URL set to it, so the fake AS can fetch the document. */
async function listeningApp(
  t: ExecutionContext<TestContext>,
  configure: (base: ReturnType<typeof oauthTestConfig>) => ReturnType<typeof oauthTestConfig> = (c) => c,
) {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app: App = t.context.t.rebuild({ config: configure({ ...oauthTestConfig(), publicBaseUrl: base }) });
  handler = app.callback();
  return { app, base };
}

test('the client metadata document names its own URL as client_id and our redirect URI', async (t) => {
  const response = await t.context.t.http().get(DOCUMENT_PATH).expect(200);
  t.deepEqual(response.body, {
    client_id: `http://localhost:3000${DOCUMENT_PATH}`,
    client_name: 'Agents backend',
    client_uri: 'http://localhost:3000',
    redirect_uris: ['http://localhost:3000/api/ai/mcp-oauth/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  });
  t.regex(response.headers['cache-control']!, /max-age=/);
});

test('an authorization server that supports CIMD gets our document URL as client_id, fetches it, and nothing is registered', async (t) => {
  const { app, base } = await listeningApp(t);
  const started = await startWithServer(t, { clientIdMetadataDocument: true });
  const initiated = await initiate(t, started, app).expect(200);
  const clientId = new URL(initiated.body.authorizationUrl).searchParams.get('client_id');
  t.is(clientId, `${base}${DOCUMENT_PATH}`);

  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  t.is(started.fake.clientMetadataDocuments.length, 1);
  t.like(started.fake.clientMetadataDocuments[0], {
    client_id: clientId,
    redirect_uris: [`${base}/api/ai/mcp-oauth/callback`],
    token_endpoint_auth_method: 'none',
  });
  await callback(t, redirect, started.token, app).expect(200);
  t.is(started.fake.registrations.length, 0);
  const [codeRequest] = started.fake.tokenRequests;
  t.is(codeRequest!.form.get('client_id'), clientId);
  t.is(codeRequest!.authorization, undefined);

  // The tokens are refreshed as the same public client.
  const later = t.context.t.rebuild({ config: app.deps.config, clock: () => new Date(Date.now() + 2 * 3600_000) });
  const auth = await validAuthForAgentMcpServer(later.deps, { organizationId: ORGANIZATIONS.demoAgency.id, serverId: started.serverId });
  t.is(auth.accessToken, started.fake.issuedAccessTokens[1]);
  t.is(refreshRequests(started)[0]!.form.get('client_id'), clientId);
});

test('a pre-registered client wins over CIMD, and CIMD over dynamic registration', async (t) => {
  const started = await startWithServer(t, { clientIdMetadataDocument: true });
  const { app } = await listeningApp(t, (c) => ({
    ...c,
    mcpOAuth: { ...c.mcpOAuth, clients: { [started.fake.issuer]: { clientId: 'configured-client' } } },
  }));
  const configured = await initiate(t, started, app).expect(200);
  t.is(new URL(configured.body.authorizationUrl).searchParams.get('client_id'), 'configured-client');
  const cimd = await request(t.context.t.app.callback())
    .post(`/api/ai/agents/${AGENTS.support.id}/mcp-servers/${started.serverId}/oauth/initiate`)
    .set('authorization', `Bearer ${started.token}`)
    .expect(200);
  t.is(new URL(cimd.body.authorizationUrl).searchParams.get('client_id'), `http://localhost:3000${DOCUMENT_PATH}`);
  t.is(started.fake.registrations.length, 0);
});
