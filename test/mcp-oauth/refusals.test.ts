import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { callback, initiate, oauthTestConfig, startWithServer } from './context.ts';

const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

const countTokens = (t: ExecutionContext<TestContext>, serverId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM agent_mcp_server_oauth_tokens WHERE server_id = ${serverId}`);

test('an authorization server that does not advertise S256 is refused before any registration', async (t) => {
  for (const methods of [['plain'], undefined]) {
    const started = await startWithServer(t, { codeChallengeMethods: methods });
    const response = await initiate(t, started).expect(502);
    t.is(response.body.errorCode, 'MCP_OAUTH.PKCE_UNSUPPORTED');
    t.is(started.fake.registrations.length, 0);
  }
});

test('authorization server metadata naming another issuer is refused', async (t) => {
  const started = await startWithServer(t, { advertisedIssuer: (issuer) => `${issuer}-other` });
  const response = await initiate(t, started).expect(502);
  t.is(response.body.errorCode, 'MCP_OAUTH.ISSUER_MISMATCH');
  t.is(started.fake.registrations.length, 0);
});

test('a callback whose iss names another issuer is refused without a token request', async (t) => {
  const started = await startWithServer(t, { iss: 'other' });
  const initiated = await initiate(t, started).expect(200);
  const response = await callback(t, await started.fake.authorize(initiated.body.authorizationUrl), started.token).expect(400);
  t.is(response.body.errorCode, 'MCP_OAUTH.ISSUER_MISMATCH');
  t.is(started.fake.tokenRequests.length, 0);
  t.is(await countTokens(t, started.serverId), 0);
});

test('a callback without iss is refused when the server advertised iss support, and accepted when it did not', async (t) => {
  const strict = await startWithServer(t, { iss: 'none', issParameterSupported: true });
  const first = await initiate(t, strict).expect(200);
  const refused = await callback(t, await strict.fake.authorize(first.body.authorizationUrl), strict.token).expect(400);
  t.is(refused.body.errorCode, 'MCP_OAUTH.ISSUER_MISMATCH');
  t.is(strict.fake.tokenRequests.length, 0);

  const lenient = await startWithServer(t, { iss: 'none', issParameterSupported: false });
  const second = await initiate(t, lenient).expect(200);
  await callback(t, await lenient.fake.authorize(second.body.authorizationUrl), lenient.token).expect(200);
});

test('a replayed state is refused and the code is exchanged only once', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  await callback(t, redirect, started.token).expect(200);
  const replay = await callback(t, redirect, started.token).expect(400);
  t.is(replay.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
  t.is(started.fake.tokenRequests.length, 1);
});

test('a state is refused once ten minutes have passed', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const later = new Date(Date.parse(initiated.body.expiresAt) + 1);
  const app = t.context.t.rebuild({ config: oauthTestConfig(), clock: () => later });
  const response = await callback(t, redirect, started.token, app).expect(400);
  t.is(response.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
  t.is(started.fake.tokenRequests.length, 0);
});

test('a state is accepted just before it expires', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const justBefore = new Date(Date.parse(initiated.body.expiresAt) - 1000);
  const app = t.context.t.rebuild({ config: oauthTestConfig(), clock: () => justBefore });
  const response = await callback(t, redirect, started.token, app).expect(200);
  t.is(response.body.connected, true);
});

test("another user's state is refused like an unknown one and stays usable by its owner", async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const otherToken = await t.context.t.login('owner@other.test');
  const stolen = await callback(t, redirect, otherToken).expect(400);
  t.is(stolen.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
  t.is(started.fake.tokenRequests.length, 0);
  await callback(t, redirect, started.token).expect(200);
});

test('an error answered by the authorization server is surfaced after the iss check and consumes the state', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const state = initiated.body.state as string;
  const denied = new URLSearchParams({ error: 'access_denied', error_description: 'User said no', state, iss: started.fake.issuer });
  const response = await callback(t, denied, started.token).expect(400);
  t.is(response.body.errorCode, 'MCP_OAUTH.AUTHORIZATION_DENIED');
  t.deepEqual(response.body.metadata, { error: 'access_denied', errorDescription: 'User said no' });
  const again = await callback(t, new URLSearchParams({ code: 'x', state, iss: started.fake.issuer }), started.token).expect(400);
  t.is(again.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
});

for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/.well-known/oauth-protected-resource']) {
  test(`a metadata redirect to the private address ${new URL(target).hostname} is refused without connecting`, async (t) => {
    const started = await startWithServer(t, {
      routes: {
        'GET /.well-known/oauth-protected-resource/mcp': (_request, response) => {
          response.writeHead(302, { location: target });
          response.end();
        },
      },
    });
    const response = await initiate(t, started).expect(502);
    // Connecting to the unroutable address would have ended in the 504 timeout instead.
    t.is(response.body.errorCode, 'MCP_OAUTH.URL_REFUSED');
    t.regex(response.body.metadata.detail, /refused to call/);
  });
}

test('an oversized metadata response is refused', async (t) => {
  const started = await startWithServer(t, {
    routes: {
      'GET /.well-known/oauth-protected-resource/mcp': (_request, response) => {
        // Chunked, without Content-Length: the bound must hold while streaming.
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(8 * 1024, 0x20);
        let sent = 0;
        const more = () => {
          while (sent < 1024 * 1024 && !response.destroyed) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
          response.end();
        };
        more();
      },
    },
  });
  const response = await initiate(t, started).expect(502);
  t.is(response.body.errorCode, 'MCP_OAUTH.UPSTREAM_RESPONSE_TOO_LARGE');
});

test('a slow authorization server is refused within the timeout', async (t) => {
  const started = await startWithServer(t, {
    routes: {
      'GET /.well-known/oauth-authorization-server/tenant': (_request, response) => {
        // Headers at once, then one byte every 100 ms: only a deadline on the whole body stops it.
        response.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => response.write(' '), 100);
        response.on('close', () => clearInterval(timer));
      },
    },
  });
  const timeoutMs = 800;
  const app = t.context.t.rebuild({ config: oauthTestConfig({ outboundTimeoutMs: timeoutMs }) });
  const response = await initiate(t, started, app).expect(504);
  t.is(response.body.errorCode, 'MCP_OAUTH.UPSTREAM_TIMEOUT');
  t.true(started.fake.hits.includes('GET /.well-known/oauth-authorization-server/tenant'));
  // The trickle never ends: any answer at all means the deadline fired.
});

test('a token endpoint that refuses the code is a 502 naming its OAuth error and stores nothing', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  redirect.set('code', 'forged-code');
  const response = await callback(t, redirect, started.token).expect(502);
  t.is(response.body.errorCode, 'MCP_OAUTH.TOKEN_REQUEST_FAILED');
  t.regex(response.body.metadata.detail, /invalid_grant/);
  t.is(await countTokens(t, started.serverId), 0);
});

test('a callback without code is a validation error at query.code', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const query = new URLSearchParams({ state: initiated.body.state, iss: started.fake.issuer });
  const response = await callback(t, query, started.token).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['query', 'code'], message: 'Required' }]);
  t.is(started.fake.tokenRequests.length, 0);
});

test('concurrent callbacks with one state exchange the code once', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const responses = await Promise.all(Array.from({ length: 5 }, () => callback(t, redirect, started.token)));
  t.deepEqual(responses.map((response) => response.status).sort(), [200, 400, 400, 400, 400]);
  t.is(started.fake.tokenRequests.length, 1);
});

test('protected resource metadata describing another resource is not used (RFC 9728 §3.3)', async (t) => {
  const started = await startWithServer(t, {
    routes: {
      'GET /.well-known/oauth-protected-resource/mcp': (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ resource: 'https://other.example/mcp', authorization_servers: ['https://evil.example'] }));
      },
    },
  });
  const response = await initiate(t, started).expect(502);
  t.is(response.body.errorCode, 'MCP_OAUTH.DISCOVERY_FAILED');
  t.false(started.fake.hits.some((hit) => hit.includes('oauth-authorization-server')));
});
