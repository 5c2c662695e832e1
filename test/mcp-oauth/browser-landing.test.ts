import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import type { App } from '../../app/app.ts';
import { AGENTS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { CALLBACK_PATH, initiate, oauthTestConfig, startWithServer } from './context.ts';

const test = withTestApp(anyTest, { app: { config: { ...oauthTestConfig(), frontendUrl: 'https://app.example.com/connections' } } });
type T = ExecutionContext<TestContext>;

const COMPLETE_PATH = '/api/ai/mcp-oauth/complete';

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

/** What the front-end does on the landing page: its own access token, the hand-off and the key it kept. */
const complete = (t: T, token: string, body: { handoff: string; browserKey: string }, app?: App) =>
  (app ? request(app.callback()) : t.context.t.http()).post(COMPLETE_PATH).set('authorization', `Bearer ${token}`).send(body);

test("the owner's own browser flow completes in one redirect plus one call by the front-end that started it", async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  t.is(typeof initiated.body.browserKey, 'string');
  t.false(initiated.body.authorizationUrl.includes(initiated.body.browserKey), 'the key never goes to the authorization server');

  const response = await land(t, await started.fake.authorize(initiated.body.authorizationUrl));
  t.is(response.status, 303);
  const { at, params } = landing(response.headers.location);
  t.is(at, 'https://app.example.com/connections');
  t.like(params, { mcpOAuth: 'handoff', agentId: AGENTS.support.id, serverId: started.serverId });
  t.regex(params.handoff ?? '', /^[A-Za-z0-9_-]{43}$/);
  t.is(started.fake.tokenRequests.length, 0, 'the landing exchanges no code');
  t.is(await countTokens(t, started.serverId), 0);

  const done = await complete(t, started.token, { handoff: params.handoff!, browserKey: initiated.body.browserKey }).expect(200);
  t.like(done.body, { agentId: AGENTS.support.id, serverId: started.serverId, connected: true, scope: 'mcp:read' });
  t.is(started.fake.tokenRequests.length, 1);
  const stored = await t.context.t.db.pool.oneFirst(sql.type(z.object({ userId: z.string() }))`
    SELECT user_id AS "userId" FROM agent_mcp_server_oauth_tokens WHERE server_id = ${started.serverId}`);
  t.is(stored, USERS.owner.id, 'the tokens are recorded for the user who started the flow');
});

test('an authorization URL an attacker started and a victim consented to connects nothing', async (t) => {
  // The attacker (the demo owner here) starts a flow for their own agent and keeps the browser key.
  const attacker = await startWithServer(t);
  const initiated = await initiate(t, attacker).expect(200);
  // The victim opens the link, consents at the authorization server and lands in their own browser.
  const victimRedirect = await attacker.fake.authorize(initiated.body.authorizationUrl);
  const victimLanding = await land(t, victimRedirect);
  const { params } = landing(victimLanding.headers.location);
  t.is(params.mcpOAuth, 'handoff');
  t.is(attacker.fake.tokenRequests.length, 0);

  // The victim's front-end holds no key for this flow; whatever it sends, with its own token, is refused.
  const victim = await t.context.t.login(USERS.otherOwner.email);
  const byVictim = await complete(t, victim, { handoff: params.handoff!, browserKey: 'not-the-key' }).expect(400);
  t.is(byVictim.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  // The attacker holds the key but never sees the hand-off, which went to the victim's browser.
  const byAttacker = await complete(t, attacker.token, { handoff: 'guessed-handoff', browserKey: initiated.body.browserKey }).expect(400);
  t.is(byAttacker.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  // Nor does the state alone help: the JSON callback needs the code, which only the victim's browser saw.
  const state = new URL(initiated.body.authorizationUrl).searchParams.get('state')!;
  const iss = victimRedirect.get('iss')!; // the issuer is public
  await request(t.context.t.app.callback())
    .get(`${CALLBACK_PATH}?${new URLSearchParams({ state, iss, code: 'guessed-code' }).toString()}`)
    .set('authorization', `Bearer ${attacker.token}`)
    .expect(502);

  t.is(await countTokens(t, attacker.serverId), 0, "nothing of the victim's account is connected to the attacker's agent");
  t.is(attacker.fake.tokenRequests.length, 1);
  t.is(attacker.fake.tokenRequests[0]?.form.get('code'), 'guessed-code', 'the only token request carried the guess, not the victim code');
});

test('another user holding the hand-off and the key is refused, and the owner can still complete', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const { params } = landing((await land(t, await started.fake.authorize(initiated.body.authorizationUrl))).headers.location);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const refused = await complete(t, other, { handoff: params.handoff!, browserKey: initiated.body.browserKey }).expect(400);
  t.is(refused.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  t.is(started.fake.tokenRequests.length, 0);
  await complete(t, started.token, { handoff: params.handoff!, browserKey: initiated.body.browserKey }).expect(200);
  t.is(await countTokens(t, started.serverId), 1);
});

test('a completed hand-off cannot be completed again, and a replayed landing is refused', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(initiated.body.authorizationUrl);
  const { params } = landing((await land(t, redirect)).headers.location);
  const replayedLanding = await land(t, redirect);
  t.is(replayedLanding.status, 303);
  t.deepEqual(landing(replayedLanding.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });

  const body = { handoff: params.handoff!, browserKey: initiated.body.browserKey };
  await complete(t, started.token, body).expect(200);
  const again = await complete(t, started.token, body).expect(400);
  t.is(again.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  t.is(started.fake.tokenRequests.length, 1);
});

test('an expired hand-off is refused and consumed, and an expired state does not land', async (t) => {
  const started = await startWithServer(t);
  const initiated = await initiate(t, started).expect(200);
  const { params } = landing((await land(t, await started.fake.authorize(initiated.body.authorizationUrl))).headers.location);
  const body = { handoff: params.handoff!, browserKey: initiated.body.browserKey };
  const later = t.context.t.rebuild({ clock: () => new Date(Date.now() + 3 * 60 * 1000) });
  const late = await complete(t, started.token, body, later).expect(400);
  t.is(late.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID');
  const afterwards = await complete(t, started.token, body).expect(400);
  t.is(afterwards.body.errorCode, 'MCP_OAUTH.HANDOFF_INVALID', 'the expired hand-off was used up');

  const second = await initiate(t, started).expect(200);
  const redirect = await started.fake.authorize(second.body.authorizationUrl);
  const muchLater = t.context.t.rebuild({ clock: () => new Date(Date.now() + 11 * 60 * 1000) });
  const response = await land(t, redirect, muchLater);
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
  t.is(started.fake.tokenRequests.length, 0);
});

test('a landing whose iss names another issuer is refused at completion without a token request', async (t) => {
  const started = await startWithServer(t, { iss: 'other' });
  const initiated = await initiate(t, started).expect(200);
  const { params } = landing((await land(t, await started.fake.authorize(initiated.body.authorizationUrl))).headers.location);
  const refused = await complete(t, started.token, { handoff: params.handoff!, browserKey: initiated.body.browserKey }).expect(400);
  t.is(refused.body.errorCode, 'MCP_OAUTH.ISSUER_MISMATCH');
  t.is(started.fake.tokenRequests.length, 0);
  t.is(await countTokens(t, started.serverId), 0);
});

test('an unknown state is refused on the front-end', async (t) => {
  const response = await land(t, new URLSearchParams({ state: 'made-up', code: 'x' }));
  t.is(response.status, 303);
  t.deepEqual(landing(response.headers.location).params, { mcpOAuth: 'error', errorCode: 'MCP_OAUTH.INVALID_STATE' });
});

test('completion validates its body and needs the agent update grant', async (t) => {
  const owner = await t.context.t.login('owner@demo.test');
  const invalid = await complete(t, owner, { handoff: '', browserKey: 'k' } as never).expect(400);
  t.is(invalid.body.message, 'Validation failed');
  const member = await t.context.t.login('member@demo.test');
  await complete(t, member, { handoff: 'h', browserKey: 'k' }).expect(403);
  await t.context.t.http().post(COMPLETE_PATH).send({ handoff: 'h', browserKey: 'k' }).expect(401);
});
