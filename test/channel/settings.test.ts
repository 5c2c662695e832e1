import anyTest from 'ava';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { agentId, openSession, putChannel, rotateSecret, SHOP } from './support.ts';
import { userHashOf } from '../../app/channel/secrets.ts';

const test = withTestApp(anyTest);

test.serial('an agent has no channel until it is put: GET is 404 AI.CHANNEL_NOT_FOUND', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t.http().get(`/api/ai/agents/${AGENTS.research.id}/channel`).set('authorization', `Bearer ${token}`);
  t.is(response.status, 404);
  t.is(response.body.errorCode, 'AI.CHANNEL_NOT_FOUND');
});

test.serial('PUT makes the channel with a publishable key it keeps across changes, and the defaults for what it leaves out', async (t) => {
  const first = await putChannel(t, { allowedOrigins: [SHOP] });
  t.regex(first.publishableKey, /^agp_[0-9A-Za-z]{32}$/);
  t.like(first, {
    enabled: true,
    allowedOrigins: [SHOP],
    identity: 'anonymous',
    approvals: 'staff',
    endUserMessagesPerDay: 50,
    greeting: '',
    agentId,
  });
  const second = await putChannel(t, {
    allowedOrigins: ['http://localhost:8080', SHOP, SHOP],
    identity: 'verified',
    approvals: 'end_user',
    endUserMessagesPerDay: 7,
    greeting: 'Hi! How can I help?',
  });
  t.is(second.publishableKey, first.publishableKey);
  t.like(second, {
    allowedOrigins: ['http://localhost:8080', SHOP],
    identity: 'verified',
    approvals: 'end_user',
    endUserMessagesPerDay: 7,
  });
  const token = await t.context.t.login('owner@demo.test');
  const read = await t.context.t.http().get(`/api/ai/agents/${agentId}/channel`).set('authorization', `Bearer ${token}`).expect(200);
  t.deepEqual(read.body, second);
  t.false('secret' in read.body);
  await putChannel(t, { allowedOrigins: [SHOP] });
});

test.serial('allowed origins are exact: a path, a wildcard, another scheme, a trailing slash or more than 20 are 400', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const put = (allowedOrigins: string[]) =>
    t.context.t
      .http()
      .put(`/api/ai/agents/${agentId}/channel`)
      .set('authorization', `Bearer ${token}`)
      .send({ enabled: true, allowedOrigins });
  for (const origin of [
    'https://shop.example.com/store',
    'https://*.example.com',
    'ftp://shop.example.com',
    'https://shop.example.com/',
    'shop.example.com',
    'https://SHOP.example.com',
  ]) {
    const response = await put([SHOP, origin]);
    t.is(response.status, 400, origin);
    t.deepEqual(response.body.errors[0].path, ['allowedOrigins', '1'], origin);
  }
  const many = await put(Array.from({ length: 21 }, (_, i) => `https://shop${i}.example.com`));
  t.is(many.status, 400);
  t.is((await put(['http://127.0.0.1:8080', 'https://shop.example.com:8443'])).status, 200);
  await putChannel(t, { allowedOrigins: [SHOP] });
});

test.serial("the channel is the agent's organization's: a member without update is 403, another agency's owner 404", async (t) => {
  const member = await t.context.t.login('member@demo.test');
  t.is(
    (await t.context.t.http().put(`/api/ai/agents/${agentId}/channel`).set('authorization', `Bearer ${member}`).send({ enabled: true }))
      .status,
    403,
  );
  const other = await t.context.t.login('owner@other.test');
  const response = await t.context.t.http().get(`/api/ai/agents/${agentId}/channel`).set('authorization', `Bearer ${other}`);
  t.is(response.status, 404);
  t.is(response.body.errorCode, 'AI.AGENT_NOT_FOUND');
});

test.serial('the secret is shown once and a new one replaces the old at once', async (t) => {
  const { publishableKey } = await putChannel(t);
  const first = await rotateSecret(t);
  t.regex(first, /^ags_[0-9A-Za-z]{40}$/);
  const user = { id: 'customer-42', hash: userHashOf(first, 'customer-42') };
  t.is((await openSession(t, { publishableKey, user }, null)).status, 201);
  const second = await rotateSecret(t);
  t.not(second, first);
  const stale = await openSession(t, { publishableKey, user }, null);
  t.is(stale.status, 401);
  t.is(stale.body.errorCode, 'AI.END_USER_NOT_VERIFIED');
  t.is((await openSession(t, { publishableKey, user: { id: 'customer-42', hash: userHashOf(second, 'customer-42') } }, null)).status, 201);
});

test.serial('a secret before the channel exists is 404', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t
    .http()
    .post(`/api/ai/agents/${AGENTS.research.id}/channel/secret`)
    .set('authorization', `Bearer ${token}`);
  t.is(response.status, 404);
  t.is(response.body.errorCode, 'AI.CHANNEL_NOT_FOUND');
});
