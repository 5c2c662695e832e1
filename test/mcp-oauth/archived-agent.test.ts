import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { CALLBACK_PATH, callback, initiatePath, oauthTestConfig } from './context.ts';
import { insertOAuthServer, startFakeOAuth, type FakeOAuth } from './fake-servers.ts';

const test = withTestApp(anyTest, { app: { config: { ...oauthTestConfig(), frontendUrl: 'https://app.example.com/connections' } } });
type T = ExecutionContext<TestContext>;

const countTokens = (t: T, serverId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM agent_mcp_server_oauth_tokens WHERE server_id = ${serverId}`);

type Flow = { fake: FakeOAuth; token: string; agentId: string; serverId: string; redirect: URLSearchParams; browserKey: string };

/** A new agent with an OAuth MCP server, its flow initiated and consented to at the fake authorization server. */
async function consentedFlow(t: T): Promise<Flow> {
  const fake = await startFakeOAuth();
  t.teardown(() => fake.close());
  const token = await t.context.t.login('owner@demo.test');
  const auth = `Bearer ${token}`;
  const created = await t.context.t.http().post('/api/ai/agents').set('authorization', auth).send({ name: 'Connector' }).expect(201);
  const agentId = created.body.id as string;
  const serverId = await insertOAuthServer(t.context.t.db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    agentId,
    url: fake.resourceUrl,
  });
  const initiated = await t.context.t.http().post(initiatePath(serverId, agentId)).set('authorization', auth).expect(200);
  const redirect = await fake.authorize(initiated.body.authorizationUrl);
  return { fake, token, agentId, serverId, redirect, browserKey: initiated.body.browserKey };
}

const archive = (t: T, flow: Flow) =>
  t.context.t.http().delete(`/api/ai/agents/${flow.agentId}`).set('authorization', `Bearer ${flow.token}`).expect(204);

test("a callback for an archived agent's server is an unknown state: no code exchanged, no tokens stored", async (t) => {
  const flow = await consentedFlow(t);
  await archive(t, flow);
  const response = await callback(t, flow.redirect, flow.token).expect(400);
  t.is(response.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
  t.is(flow.fake.tokenRequests.length, 0);
  t.is(await countTokens(t, flow.serverId), 0);
});

test("a browser landing for an archived agent's server is refused like an unknown state", async (t) => {
  const flow = await consentedFlow(t);
  await archive(t, flow);
  const landed = await request(t.context.t.app.callback()).get(`${CALLBACK_PATH}?${flow.redirect.toString()}`);
  t.is(landed.status, 303);
  const params = Object.fromEntries(new URL(landed.headers.location ?? 'about:blank').searchParams);
  t.deepEqual(params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
  t.is(flow.fake.tokenRequests.length, 0);
});

test('a hand-off landed before the archive cannot be completed after it', async (t) => {
  const flow = await consentedFlow(t);
  const landed = await request(t.context.t.app.callback()).get(`${CALLBACK_PATH}?${flow.redirect.toString()}`);
  const handoff = new URL(landed.headers.location ?? 'about:blank').searchParams.get('handoff');
  t.regex(handoff ?? '', /^[A-Za-z0-9_-]{43}$/);
  await archive(t, flow);
  const completed = await t.context.t
    .http()
    .post('/api/ai/mcp-oauth/complete')
    .set('authorization', `Bearer ${flow.token}`)
    .send({ handoff, browserKey: flow.browserKey })
    .expect(400);
  t.is(completed.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  t.is(flow.fake.tokenRequests.length, 0);
  t.is(await countTokens(t, flow.serverId), 0);
});

test('an agent archived while its tokens are being requested gets none stored, and the callback answers as for an unknown state', async (t) => {
  const flow = await consentedFlow(t);
  flow.fake.tokenDelayMs = 400;
  const answer = callback(t, flow.redirect, flow.token).then((response) => response);
  // Waiting on the fake authorization server, an external peer, to receive the exchange (bounded at 10 s).
  const end = Date.now() + 10_000;
  while (flow.fake.tokenRequests.length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  t.is(flow.fake.tokenRequests.length, 1, 'the code was being exchanged');
  await archive(t, flow);
  const response = await answer;
  t.is(response.status, 400);
  t.is(response.body.errorCode, 'MCP_OAUTH.INVALID_STATE');
  t.is(await countTokens(t, flow.serverId), 0);
});
