import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import { AGENTS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { CALLBACK_PATH, initiate, oauthTestConfig, startWithServer } from './context.ts';

const test = withTestApp(anyTest, { app: { config: { ...oauthTestConfig(), frontendUrl: 'https://app.example.com/connections' } } });
type T = ExecutionContext<TestContext>;

const countTokens = (t: T, serverId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM agent_mcp_server_oauth_tokens WHERE server_id = ${serverId}`);

/** What a browser does when the authorization server redirects it: a GET with no Authorization header. */
const land = (t: T, query: URLSearchParams, app = t.context.t.app) =>
  request(app.callback()).get(`${CALLBACK_PATH}?${query.toString()}`).set('accept', 'text/html,application/xhtml+xml,*/*;q=0.8');

const landing = (location: string | undefined) => {
  const url = new URL(location ?? 'about:blank');
  return { at: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
};

test('a browser landing on the callback without a token connects the server and is sent to the front-end', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const response = await land(t, await started.fake.authorize(initiated.body.authorizationUrl));
  t.is(response.status, 303);
  t.deepEqual(landing(response.headers.location), {
    at: 'https://app.example.com/connections',
    params: { mcpOAuth: 'connected', agentId: AGENTS.support.id, serverId: started.serverId },
  });
  t.is(started.fake.tokenRequests.length, 1);
  t.is(await countTokens(t, started.serverId), 1);
  const stored = await t.context.t.db.pool.oneFirst(sql.type(z.object({ userId: z.string() }))`
    SELECT user_id AS "userId" FROM agent_mcp_server_oauth_tokens WHERE server_id = ${started.serverId}`);
  t.is(stored, USERS.owner.id, 'the tokens are recorded for the user who started the flow');
});

test('a replayed browser landing is refused on the front-end and exchanges nothing more', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  t.is((await land(t, redirect)).status, 303);
  const replay = await land(t, redirect);
  t.is(replay.status, 303);
  t.deepEqual(landing(replay.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
  t.is(started.fake.tokenRequests.length, 1);
});

test('an expired state is refused on the front-end', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const later = t.context.t.rebuild({ clock: () => new Date(Date.now() + 11 * 60 * 1000) });
  const response = await land(t, redirect, later);
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
  t.is(started.fake.tokenRequests.length, 0);
});

test('a landing whose iss names another issuer is refused on the front-end without a token request', async (t) => {
  const started = await startWithServer(t, { iss: 'other' });
  const initiated = await initiate(t, started).expect(200);
  const response = await land(t, await started.fake.authorize(initiated.body.authorizationUrl));
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.ISSUER_MISMATCH' });
  t.is(started.fake.tokenRequests.length, 0);
  t.is(await countTokens(t, started.serverId), 0);
});

test('an unknown state is refused on the front-end', async (t) => {
  const response = await land(t, new URLSearchParams({ state: 'made-up', code: 'x' }));
  t.is(response.status, 303);
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
});

// Serial: it takes the demo owner's roles away for a moment.
test.serial('a user who lost the agent update grant after initiate cannot complete from the browser', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const roles = await t.context.t.db.pool.any(sql.type(z.object({ roleId: z.string() }))`
    DELETE FROM user_roles WHERE user_id = ${USERS.owner.id} RETURNING role_id AS "roleId"`);
  t.teardown(async () => {
    for (const { roleId } of roles) {
      await t.context.t.db.pool.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${USERS.owner.id}, ${roleId})`);
    }
  });
  const response = await land(t, redirect);
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'HTTP_403' });
  t.is(started.fake.tokenRequests.length, 0);
});
