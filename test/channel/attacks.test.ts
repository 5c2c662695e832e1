import anyTest from 'ava';
import jwt from 'jsonwebtoken';
import { sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import { userHashOf } from '../../app/channel/secrets.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { TEST_JWT_SECRET, withTestApp } from '../helpers/app.ts';
import { chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { anonymousSession, openSession, putChannel, rotateSecret, SHOP, type T } from './support.ts';

/*
 * The web channel tried as an attacker would (docs/channel.md, "What was tried"): every answer is
 * the documented status and envelope, and nothing reaches another channel, agent, end user or
 * organization. The per-address limit is in limits.test.ts.
 */
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const RESEARCH_SITE = 'https://research.example.com';
const UNAUTHORIZED = { statusCode: 401, message: 'Invalid or missing access token' };

const get = (t: T, path: string, token: string, origin: string | null = SHOP) => {
  const call = t.context.t.http().get(path).set('authorization', `Bearer ${token}`);
  return origin === null ? call : call.set('origin', origin);
};

const endUsers = (t: T) => t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM end_users`);

/** The first words of each message of a conversation read. */
const texts = (body: { messages: { parts: { type: string; text?: string }[] }[] }) =>
  body.messages.map((message) => (message.parts.find((part) => part.type === 'text')?.text ?? '').split(' ')[0]);

/** `token`'s payload with `change` applied and its original header and signature kept. */
function edited(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${signature}`;
}

test.serial(
  'a replayed visitor token continues its visitor only on its channel, from an allowed origin, for 90 days and while the channel is on',
  async (t) => {
    const { publishableKey } = await putChannel(t);
    const first = await anonymousSession(t, publishableKey);
    // From a page the channel does not allow, the token buys nothing: 403 and no session.
    const elsewhere = await openSession(t, { publishableKey, visitorToken: first.visitorToken }, 'https://evil.example.net');
    t.is(elsewhere.status, 403);
    t.is(elsewhere.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    t.is(elsewhere.body.sessionToken, undefined);
    // 89 days on it still names the visitor; 91 days on it names nobody and a new visitor starts.
    const at = (days: number) => {
      const app = t.context.t.rebuild({ clock: () => new Date(Date.now() + days * 86_400_000) });
      return request(app.callback())
        .post('/api/public/sessions')
        .set('origin', SHOP)
        .send({ publishableKey, visitorToken: first.visitorToken });
    };
    t.is((await at(89)).body.endUser.id, first.endUser.id);
    const late = await at(91);
    t.is(late.status, 201);
    t.not(late.body.endUser.id, first.endUser.id);
    t.not(late.body.visitorToken, first.visitorToken);
    // A disabled channel takes no token at all.
    await putChannel(t, { enabled: false });
    const disabled = await openSession(t, { publishableKey, visitorToken: first.visitorToken });
    t.is(disabled.status, 404);
    t.is(disabled.body.errorCode, 'AI.CHANNEL_NOT_FOUND');
    await putChannel(t);
    // Only its hash is kept: a made-up token of the right shape names nobody (one character off: sessions.test.ts).
    const madeUp = await anonymousSession(t, publishableKey, `agv_${'A'.repeat(40)}`);
    t.not(madeUp.endUser.id, first.endUser.id);
  },
);

test.serial(
  'a session token is bound to its channel: another channel’s origin is 403, and an edited agent, organization, end user or type is 401',
  async (t) => {
    const { publishableKey } = await putChannel(t, { allowedOrigins: [RESEARCH_SITE] }, AGENTS.research.id);
    const opened = await openSession(t, { publishableKey }, RESEARCH_SITE);
    t.is(opened.status, 201);
    const token = opened.body.sessionToken as string;
    t.is((await get(t, '/api/public/conversations', token, RESEARCH_SITE)).status, 200);
    // The support channel's page (SHOP) cannot use a research session.
    const shop = await get(t, '/api/public/conversations', token, SHOP);
    t.is(shop.status, 403);
    t.is(shop.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    t.is(shop.headers['access-control-allow-origin'], undefined);
    const other = await anonymousSession(t, (await putChannel(t)).publishableKey);
    const changes: Record<string, unknown>[] = [
      { agentId: AGENTS.support.id },
      { organizationId: ORGANIZATIONS.otherAgency.id },
      { sub: other.endUser.id },
      { type: 'user' },
      { exp: Math.floor(Date.now() / 1000) + 365 * 86_400 },
    ];
    for (const change of changes) {
      const response = await get(t, '/api/public/conversations', edited(token, change), null);
      t.is(response.status, 401, JSON.stringify(change));
      t.deepEqual(response.body, UNAUTHORIZED);
    }
    // Unsigned (`alg: none`), or another algorithm than HS256: 401.
    const claims = jwt.decode(token) as Record<string, unknown>;
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${token.split('.')[1]}.`;
    t.is((await get(t, '/api/public/conversations', unsigned, null)).status, 401);
    const hs512 = jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512' });
    t.is((await get(t, '/api/public/conversations', hs512, null)).status, 401);
    // The session token lasts an hour by the service's clock: a second before its `exp` it reads, at its `exp` it is over.
    const at = (seconds: number) => {
      const exp = (claims.exp as number) * 1000;
      const app = t.context.t.rebuild({ clock: () => new Date(exp + seconds * 1000) });
      return request(app.callback()).get('/api/public/conversations').set('authorization', `Bearer ${token}`);
    };
    t.is((await at(-1)).status, 200);
    const expired = await at(0);
    t.is(expired.status, 401);
    t.deepEqual(expired.body, UNAUTHORIZED);
  },
);

test.serial("a staff token's claims re-signed as end_user without the service's secret are 401 on every public route", async (t) => {
  await putChannel(t);
  const staff = await t.context.t.login('owner@demo.test');
  const staffClaims = jwt.decode(staff) as Record<string, unknown>;
  const asEndUser = { ...staffClaims, type: 'end_user', agentId: AGENTS.support.id, organizationId: staffClaims.agencyId };
  const guesses = [
    jwt.sign(asEndUser, 'a-guessed-secret-that-is-not-the-service-one', { algorithm: 'HS256' }),
    jwt.sign(asEndUser, '', { algorithm: 'none' }),
    edited(staff, { type: 'end_user', agentId: AGENTS.support.id, organizationId: staffClaims.agencyId }),
  ];
  for (const guess of guesses) {
    for (const path of ['/api/public/conversations', '/api/public/conversations/any', '/api/public/chat/any/stream']) {
      const response = await get(t, path, guess);
      t.is(response.status, 401, path);
      t.deepEqual(response.body, UNAUTHORIZED);
    }
    const chat = await t.context.t
      .http()
      .post('/api/public/chat')
      .set('origin', SHOP)
      .set('authorization', `Bearer ${guess}`)
      .send({ id: 'c-1', messages: [userMessage('hi', 'h1')] });
    t.is(chat.status, 401);
  }
});

test.serial('a disabled channel ends its sessions on every public route, and no way of signing in opens a new one', async (t) => {
  const { publishableKey } = await putChannel(t);
  const secret = await rotateSecret(t);
  const session = await anonymousSession(t, publishableKey);
  await putChannel(t, { enabled: false });
  const http = t.context.t.http;
  const auth = `Bearer ${session.sessionToken}`;
  const answers = [
    await http().get('/api/public/conversations').set('authorization', auth),
    await http().get('/api/public/conversations/c-1').set('authorization', auth),
    await http().get('/api/public/chat/c-1/stream').set('authorization', auth),
    await http().post('/api/public/chat/c-1/stop').set('authorization', auth),
    await http()
      .post('/api/public/chat')
      .set('authorization', auth)
      .send({ id: 'c-1', messages: [userMessage('hi', 'h1')] }),
    await openSession(t, { publishableKey, user: { id: 'u-1', hash: userHashOf(secret, 'u-1') } }),
    await openSession(t, { publishableKey }, SHOP, {
      authorization: `Bearer ${await t.context.t.login('customer@demo.test', undefined, 'client')}`,
    }),
  ];
  t.deepEqual(
    answers.map((response) => [response.status, response.body.errorCode]),
    new Array(answers.length).fill([404, 'AI.CHANNEL_NOT_FOUND']),
  );
  await putChannel(t);
});

test.serial('huge or hostile session fields are a 4xx in the envelope and make no end user', async (t) => {
  const { publishableKey } = await putChannel(t);
  const secret = await rotateSecret(t);
  const before = await endUsers(t);
  const bodies = [
    { publishableKey, user: { id: 'x'.repeat(100_000), hash: userHashOf(secret, 'x') } },
    { publishableKey, user: { id: 'a\u0000b', hash: userHashOf(secret, 'a\u0000b') } },
    { publishableKey, visitorToken: 'v'.repeat(10_000) },
    { publishableKey: 'k'.repeat(10_000) },
    { publishableKey, user: { id: 'u-1', hash: 'f'.repeat(100_000) } },
    { publishableKey, admin: true },
  ];
  for (const body of bodies) {
    const response = await openSession(t, body);
    t.is(response.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(response.body.message, 'Validation failed');
    t.true(Array.isArray(response.body.errors));
  }
  t.is(await endUsers(t), before);
  const megabyte = await openSession(t, { publishableKey, user: { id: 'x'.repeat(2_000_000), hash: 'a' } });
  t.is(megabyte.status, 413);
  // A bearer over the longest token the service reads is 401 without being parsed.
  const long = await get(t, '/api/public/conversations', 'a'.repeat(12_000));
  t.is(long.status, 401);
});

test.serial(
  'a preflight from any origin is answered, and the request that follows from a disallowed one is 403 without CORS headers',
  async (t) => {
    const { publishableKey } = await putChannel(t);
    for (const path of ['/api/public/sessions', '/api/public/chat']) {
      const preflight = await t.context.t
        .http()
        .options(path)
        .set('origin', 'https://evil.example.net')
        .set('access-control-request-method', 'POST')
        .set('access-control-request-headers', 'authorization, content-type');
      t.is(preflight.status, 204);
      t.is(preflight.headers['access-control-allow-credentials'], undefined);
    }
    const session = await openSession(t, { publishableKey }, 'https://evil.example.net');
    t.is(session.status, 403);
    t.is(session.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    t.is(session.headers['access-control-allow-origin'], undefined);
    // A look-alike of an allowed origin is another origin.
    for (const origin of [`${SHOP}.evil.net`, 'http://shop.example.com', `${SHOP}:443`, 'https://SHOP.example.com', 'null']) {
      t.is((await openSession(t, { publishableKey }, origin)).status, 403, origin);
    }
  },
);

test.serial('nothing crosses end users, channels, agents or organizations: the same conversation id is each one’s own', async (t) => {
  const peer = await provider(t, (_request, index) => ({ kind: 'text', text: `answer ${index}`, usage: { prompt: 5, completion: 2 } }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const support = await putChannel(t);
  const research = await putChannel(t, {}, AGENTS.research.id);
  const other = await putChannel(t, {}, AGENTS.otherHelper.id, 'owner@other.test');
  const owner = await anonymousSession(t, support.publishableKey);
  const chat = (token: string, text: string) =>
    fetch(`${base}/api/public/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ id: 'shared-id', messages: [userMessage(text, `m-${text}`)] }),
    });
  const first = await chat(owner.sessionToken, 'mine');
  t.is(first.status, 200);
  await first.text();
  const strangers = [
    await anonymousSession(t, support.publishableKey),
    await anonymousSession(t, research.publishableKey),
    await anonymousSession(t, other.publishableKey),
  ];
  for (const stranger of strangers) {
    const read = await get(t, '/api/public/conversations/shared-id', stranger.sessionToken);
    t.is(read.status, 404);
    t.is(read.body.errorCode, 'AI.CONVERSATION_NOT_FOUND');
    t.deepEqual((await get(t, '/api/public/conversations', stranger.sessionToken)).body.conversations, []);
    // Writing to that id makes the stranger's own conversation; the owner's is untouched.
    const write = await chat(stranger.sessionToken, 'theirs');
    t.is(write.status, 200);
    await write.text();
    const theirs = await get(t, '/api/public/conversations/shared-id', stranger.sessionToken);
    t.deepEqual(texts(theirs.body), ['theirs', 'answer']);
  }
  const mine = await get(t, '/api/public/conversations/shared-id', owner.sessionToken);
  t.deepEqual(texts(mine.body), ['mine', 'answer']);
  // The other organization's staff see none of the demo organization's end users' conversations.
  const otherStaff = await t.context.t.login('owner@other.test');
  const staffRead = await t.context.t
    .http()
    .get(`/api/ai/agents/${AGENTS.support.id}/end-user-conversations`)
    .set('authorization', `Bearer ${otherStaff}`);
  t.is(staffRead.status, 404);
});
