import anyTest from 'ava';
import jwt from 'jsonwebtoken';
import { userHashOf } from '../../app/channel/secrets.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { TEST_JWT_SECRET, withTestApp } from '../helpers/app.ts';
import { anonymousSession, openSession, putChannel, rotateSecret, SHOP, type Session } from './support.ts';

const test = withTestApp(anyTest);

test.serial('an anonymous visitor gets a session and a visitor token that names the same end user next time', async (t) => {
  const { publishableKey } = await putChannel(t);
  const first = await openSession(t, { publishableKey });
  t.is(first.status, 201);
  t.like(first.body, { expiresIn: 3600, endUser: { verified: false }, agent: { name: 'Support Assistant' }, approvals: 'staff' });
  t.regex(first.body.visitorToken, /^agv_[0-9A-Za-z]{40}$/);
  t.is(first.headers['access-control-allow-origin'], SHOP);
  const again = await anonymousSession(t, publishableKey, first.body.visitorToken);
  t.is(again.endUser.id, first.body.endUser.id);
  t.is(again.visitorToken, first.body.visitorToken);
  // A made-up or altered token names nobody: a new end user with a new token.
  const forged = await anonymousSession(t, publishableKey, `${first.body.visitorToken.slice(0, -1)}x`);
  t.not(forged.endUser.id, first.body.endUser.id);
  t.not(forged.visitorToken, first.body.visitorToken);
});

test.serial("a visitor token of another agent's channel names nobody on this one", async (t) => {
  const support = await putChannel(t);
  const research = await putChannel(t, {}, AGENTS.research.id);
  const there = await anonymousSession(t, research.publishableKey);
  const here = await anonymousSession(t, support.publishableKey, there.visitorToken);
  t.not(here.endUser.id, there.endUser.id);
});

test.serial(
  'a page of an origin the channel does not allow is 403 AI.ORIGIN_NOT_ALLOWED without CORS headers; no Origin takes only a verified user',
  async (t) => {
    const { publishableKey } = await putChannel(t);
    const elsewhere = await openSession(t, { publishableKey }, 'https://evil.example.net');
    t.is(elsewhere.status, 403);
    t.is(elsewhere.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    t.is(elsewhere.headers['access-control-allow-origin'], undefined);
    const server = await openSession(t, { publishableKey }, null);
    t.is(server.status, 403);
    t.is(server.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    // The service's own origin (its share page) is always allowed.
    t.is((await openSession(t, { publishableKey }, 'http://localhost:3000')).status, 201);
    const secret = await rotateSecret(t);
    const verified = await openSession(t, { publishableKey, user: { id: 'u-1', hash: userHashOf(secret, 'u-1') } }, null);
    t.is(verified.status, 201);
    t.like(verified.body, { endUser: { verified: true } });
    t.false('visitorToken' in verified.body);
  },
);

test.serial('a verified user is the same end user on every session; a wrong hash is 401 AI.END_USER_NOT_VERIFIED', async (t) => {
  const { publishableKey } = await putChannel(t, { identity: 'verified' });
  const secret = await rotateSecret(t);
  const user = { id: 'customer-7', hash: userHashOf(secret, 'customer-7'), name: 'Ada', email: 'ada@shop.example.com' };
  const first = (await openSession(t, { publishableKey, user })).body as Session;
  const second = (await openSession(t, { publishableKey, user: { id: user.id, hash: user.hash } })).body as Session;
  t.is(first.endUser.id, second.endUser.id);
  t.true(first.endUser.verified);
  const wrong = await openSession(t, { publishableKey, user: { id: 'customer-7', hash: userHashOf(secret, 'customer-8') } });
  t.is(wrong.status, 401);
  t.is(wrong.body.errorCode, 'AI.END_USER_NOT_VERIFIED');
  const upper = await openSession(t, { publishableKey, user: { id: 'customer-7', hash: user.hash.toUpperCase() } });
  t.is(upper.status, 401);
  // A verified-only channel takes no anonymous visitor.
  const anonymous = await openSession(t, { publishableKey });
  t.is(anonymous.status, 401);
  t.is(anonymous.body.errorCode, 'AI.END_USER_NOT_VERIFIED');
  await putChannel(t);
});

test.serial(
  "the organization's own client signs in with its client token: verified, whatever the identity mode; any other token is 401 AI.END_USER_NOT_VERIFIED",
  async (t) => {
    const { publishableKey } = await putChannel(t, { identity: 'verified' });
    const client = await t.context.t.login('customer@demo.test', undefined, 'client');
    const first = await openSession(t, { publishableKey }, SHOP, { authorization: `Bearer ${client}` });
    t.is(first.status, 201);
    t.true(first.body.endUser.verified);
    const again = await openSession(t, { publishableKey }, null, { authorization: `Bearer ${client}` });
    t.is(again.body.endUser.id, first.body.endUser.id);
    const staff = await t.context.t.login('owner@demo.test');
    for (const authorization of [`Bearer ${staff}`, 'Bearer not-a-token']) {
      const refused = await openSession(t, { publishableKey }, SHOP, { authorization });
      t.is(refused.status, 401);
      t.is(refused.body.errorCode, 'AI.END_USER_NOT_VERIFIED');
    }
    // A client of another organization is no end customer of this one.
    const otherChannel = await putChannel(t, {}, AGENTS.otherHelper.id, 'owner@other.test');
    t.is((await openSession(t, { publishableKey: otherChannel.publishableKey }, SHOP, { authorization: `Bearer ${client}` })).status, 401);
    await putChannel(t);
  },
);

test.serial(
  'an unknown key, a disabled channel and an archived agent are 404 AI.CHANNEL_NOT_FOUND, for sessions already issued too',
  async (t) => {
    t.is((await openSession(t, { publishableKey: 'agp_00000000000000000000000000000000' })).body.errorCode, 'AI.CHANNEL_NOT_FOUND');
    const { publishableKey } = await putChannel(t, {}, AGENTS.research.id);
    const session = await anonymousSession(t, publishableKey);
    const list = () =>
      t.context.t.http().get('/api/public/conversations').set('origin', SHOP).set('authorization', `Bearer ${session.sessionToken}`);
    t.is((await list()).status, 200);
    await putChannel(t, { enabled: false }, AGENTS.research.id);
    t.is((await openSession(t, { publishableKey })).status, 404);
    const disabled = await list();
    t.is(disabled.status, 404);
    t.is(disabled.body.errorCode, 'AI.CHANNEL_NOT_FOUND');
    await putChannel(t, { enabled: true }, AGENTS.research.id);
    t.is((await list()).status, 200);
    const token = await t.context.t.login('owner@demo.test');
    await t.context.t.http().delete(`/api/ai/agents/${AGENTS.research.id}`).set('authorization', `Bearer ${token}`).expect(204);
    t.is((await list()).status, 404);
    t.is((await openSession(t, { publishableKey })).status, 404);
  },
);

test.serial('a session token works on the public routes only, and a staff token or a forged one is 401 there', async (t) => {
  const { publishableKey } = await putChannel(t);
  const session = await anonymousSession(t, publishableKey);
  const http = t.context.t.http;
  t.is((await http().get('/api/identity/me').set('authorization', `Bearer ${session.sessionToken}`)).status, 401);
  t.is(
    (await http().get(`/api/ai/agents/${AGENTS.support.id}/conversations`).set('authorization', `Bearer ${session.sessionToken}`)).status,
    401,
  );
  const staff = await t.context.t.login('owner@demo.test');
  t.is((await http().get('/api/public/conversations').set('authorization', `Bearer ${staff}`)).status, 401);
  // The same claims signed without the service's secret, or with `type` changed, fail the signature.
  const claims = jwt.decode(session.sessionToken) as Record<string, unknown>;
  const forged = jwt.sign({ ...claims }, 'not-the-secret-of-this-service-at-all', { algorithm: 'HS256' });
  t.is((await http().get('/api/public/conversations').set('authorization', `Bearer ${forged}`)).status, 401);
  const [header, , signature] = session.sessionToken.split('.');
  const retyped = Buffer.from(JSON.stringify({ ...claims, type: 'user', userId: claims.sub, agencyId: claims.organizationId })).toString(
    'base64url',
  );
  t.is((await http().get('/api/identity/me').set('authorization', `Bearer ${header}.${retyped}.${signature}`)).status, 401);
  // A staff token's claims re-signed as end_user need the secret: with it (this test knows it) the token names no end user.
  const staffClaims = jwt.decode(staff) as Record<string, unknown>;
  const resigned = jwt.sign(
    { ...staffClaims, type: 'end_user', agentId: AGENTS.support.id, organizationId: staffClaims.agencyId },
    TEST_JWT_SECRET,
    {
      algorithm: 'HS256',
    },
  );
  const noEndUser = await http().get('/api/public/conversations').set('authorization', `Bearer ${resigned}`);
  t.is(noEndUser.status, 404);
});

test.serial('a user id over 200 characters is a 400 and makes nothing', async (t) => {
  const { publishableKey } = await putChannel(t);
  const response = await openSession(t, { publishableKey, user: { id: 'x'.repeat(201), hash: 'a'.repeat(64) } });
  t.is(response.status, 400);
  t.deepEqual(response.body.errors[0].path, ['user', 'id']);
});
