import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CodedError } from '../../app/core/errors.ts';
import { openJson } from '../../app/crypto/credentials.ts';
import { validAuthForAgentMcpServer } from '../../app/mcp-client/session.ts';
import { createDatabasePool } from '../../app/db/pool.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { oauthTestConfig, startWithServer } from '../mcp-oauth/context.ts';
import { connectedOAuthServer, refreshRequests } from './oauth-connected.ts';

const test = withTestApp(anyTest, { app: { config: oauthTestConfig() } });

const organizationId = ORGANIZATIONS.demoAgency.id;
const HOUR = 3600_000;
/** An app of the same database whose clock is `offsetMs` ahead. */
const later = (t: ExecutionContext<TestContext>, offsetMs: number, config = oauthTestConfig()) =>
  t.context.t.rebuild({ config, clock: () => new Date(Date.now() + offsetMs) }).deps;

async function storedRefreshToken(t: ExecutionContext<TestContext>, serverId: string) {
  const row = await t.context.t.db.pool.one(sql.type(z.object({ keyId: z.string(), sealed: z.instanceof(Buffer) }))`
    SELECT key_id AS "keyId", sealed FROM agent_mcp_server_oauth_tokens WHERE server_id = ${serverId}`);
  return openJson<{ refreshToken: string }>(
    t.context.t.app.deps.config.credentialsKeyring,
    { keyId: row.keyId, ciphertext: row.sealed },
    `agency:${organizationId}/server:${serverId}/oauth-tokens`,
  ).refreshToken;
}

async function statusOf(t: ExecutionContext<TestContext>, serverId: string, token: string) {
  const list = await t.context.t
    .http()
    .get(`/api/ai/agents/${AGENTS.support.id}/mcp-servers`)
    .set('authorization', `Bearer ${token}`)
    .expect(200);
  return (list.body as { id: string; status: string; lastCheckedAt: string | null }[]).find((server) => server.id === serverId)!;
}

test('a valid access token is answered as stored, without a token request', async (t) => {
  const started = await connectedOAuthServer(t);
  const auth = await validAuthForAgentMcpServer(t.context.t.app.deps, { organizationId, serverId: started.serverId });
  t.deepEqual(auth.headers, { authorization: `Bearer ${started.fake.issuedAccessTokens[0]}` });
  t.is(refreshRequests(started).length, 0);
});

test('a token within 60 s of expiry is refreshed, the rotated refresh token is stored sealed and used next time', async (t) => {
  const started = await connectedOAuthServer(t);
  const firstRefresh = started.fake.issuedRefreshTokens[0]!;
  // 59 min 30 s later the 1-hour token is inside the 60 s skew.
  const auth = await validAuthForAgentMcpServer(later(t, HOUR - 30_000), { organizationId, serverId: started.serverId });
  t.is(auth.accessToken, started.fake.issuedAccessTokens[1]);
  const [request] = refreshRequests(started);
  t.is(request!.form.get('refresh_token'), firstRefresh);
  t.is(request!.form.get('resource'), started.fake.resourceUrl);
  const rotated = started.fake.issuedRefreshTokens[1]!;
  t.is(await storedRefreshToken(t, started.serverId), rotated);

  // 30 s later the new token is still good; two hours later it is refreshed with the rotated token.
  await validAuthForAgentMcpServer(later(t, HOUR), { organizationId, serverId: started.serverId });
  t.is(refreshRequests(started).length, 1);
  const again = await validAuthForAgentMcpServer(later(t, 3 * HOUR), { organizationId, serverId: started.serverId });
  t.is(refreshRequests(started)[1]!.form.get('refresh_token'), rotated);
  t.is(again.accessToken, started.fake.issuedAccessTokens[2]);
  t.false(t.context.t.logs.text().includes(rotated));
  const status = await statusOf(t, started.serverId, started.token);
  t.is(status.status, 'connected');
});

test('20 concurrent callers in two processes cause one token request and all get the new token', async (t) => {
  const started = await connectedOAuthServer(t);
  started.fake.tokenDelayMs = 300;
  // A second pool is a second process as far as PostgreSQL is concerned.
  const otherPool = await createDatabasePool(t.context.t.db.url, { maximumPoolSize: 10 });
  t.teardown(() => otherPool.end());
  const clock = () => new Date(Date.now() + 2 * HOUR);
  const first = t.context.t.rebuild({ config: oauthTestConfig(), clock }).deps;
  const second = t.context.t.rebuild({ db: otherPool, config: oauthTestConfig(), clock }).deps;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      validAuthForAgentMcpServer(i % 2 ? first : second, { organizationId, serverId: started.serverId }),
    ),
  );
  t.is(refreshRequests(started).length, 1);
  t.deepEqual(new Set(results.map((r) => r.accessToken)), new Set([started.fake.issuedAccessTokens[1]]));
  t.is(await storedRefreshToken(t, started.serverId), started.fake.issuedRefreshTokens[1]!);
});

test('a revoked refresh token marks the server reauthorization_required and answers MCP.SERVER_UNAUTHORIZED', async (t) => {
  const started = await connectedOAuthServer(t);
  started.fake.revokeRefreshTokens();
  const error = await t.throwsAsync<CodedError>(
    validAuthForAgentMcpServer(later(t, 2 * HOUR), { organizationId, serverId: started.serverId }),
  );
  t.is(error?.status, 502);
  t.is(error?.errorCode, 'MCP.SERVER_UNAUTHORIZED');
  t.like(error?.metadata, { status: 'reauthorization_required' });
  const status = await statusOf(t, started.serverId, started.token);
  t.is(status.status, 'reauthorization_required');
  t.truthy(status.lastCheckedAt);
  // The refused refresh token is not presented again.
  const requests = refreshRequests(started).length;
  await t.throwsAsync(validAuthForAgentMcpServer(later(t, 2 * HOUR), { organizationId, serverId: started.serverId }), {
    message: /refused/,
  });
  t.is(refreshRequests(started).length, requests);

  // Authorizing again connects the server again.
  const initiated = await t.context.t
    .http()
    .post(`/api/ai/agents/${AGENTS.support.id}/mcp-servers/${started.serverId}/oauth/initiate`)
    .set('authorization', `Bearer ${started.token}`)
    .expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  await t.context.t.http().get(`/api/ai/mcp-oauth/callback?${redirect}`).set('authorization', `Bearer ${started.token}`).expect(200);
  t.is((await statusOf(t, started.serverId, started.token)).status, 'connected');
});

test('a token endpoint that hangs answers 504 within the outbound timeout and leaves the refresh lock free', async (t) => {
  const started = await connectedOAuthServer(t);
  started.fake.tokenDelayMs = Infinity;
  const deps = later(t, 2 * HOUR, oauthTestConfig({ outboundTimeoutMs: 400 }));
  const error = await t.throwsAsync<CodedError>(validAuthForAgentMcpServer(deps, { organizationId, serverId: started.serverId }));
  t.is(error?.status, 504);
  t.is(error?.errorCode, 'MCP_OAUTH.UPSTREAM_TIMEOUT');
  started.fake.tokenDelayMs = 0;
  const auth = await validAuthForAgentMcpServer(deps, { organizationId, serverId: started.serverId });
  t.is(auth.accessToken, started.fake.issuedAccessTokens.at(-1));
});

test('a refresh that waits longer than the outbound timeout plus 2 s for the token row lock answers 504', async (t) => {
  const started = await connectedOAuthServer(t);
  const deps = later(t, 2 * HOUR, oauthTestConfig({ outboundTimeoutMs: 300 }));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => {};
  const holding = new Promise<void>((resolve) => (locked = resolve));
  // Another process holding the row, as a refresh whose token request hangs does.
  const holder = t.context.t.db.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT 1 FROM agent_mcp_server_oauth_tokens WHERE server_id = ${started.serverId} FOR UPDATE`);
    locked();
    await released;
  });
  await holding;
  const error = await t.throwsAsync<CodedError>(validAuthForAgentMcpServer(deps, { organizationId, serverId: started.serverId }));
  release();
  await holder;
  t.is(error?.status, 504);
  t.is(error?.errorCode, 'MCP_OAUTH.UPSTREAM_TIMEOUT');
  t.like(error?.metadata, { detail: 'waiting for a concurrent token refresh' });
  t.is(refreshRequests(started).length, 0);
});

test('an OAuth server never authorized answers MCP.AUTHORIZATION_REQUIRED and lists as needs_authorization', async (t) => {
  const started = await startWithServer(t);
  const error = await t.throwsAsync<CodedError>(
    validAuthForAgentMcpServer(t.context.t.app.deps, { organizationId, serverId: started.serverId }),
  );
  t.is(error?.errorCode, 'MCP.AUTHORIZATION_REQUIRED');
  const status = await statusOf(t, started.serverId, started.token);
  t.deepEqual([status.status, status.lastCheckedAt], ['needs_authorization', null]);
});
