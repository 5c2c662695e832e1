import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import anyTest from 'ava';
import { createTenant } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { NESTING_BOMB_JSON } from '../../fuzz/bombs.ts';
import { answerBeforeBody } from '../helpers/partial-body.ts';
import { createApiKey, usageEvent } from '../ingest/support.ts';

const test = withTestApp(anyTest, { seed: false });

let server: Server | undefined;
let listening: Promise<number> | undefined;
/** The port of the file's app, listening on loopback (started by the first test that asks). */
function portOf(t: { context: { t: TestApp } }): Promise<number> {
  listening ??= new Promise((resolve) => {
    server = t.context.t.app.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port));
  });
  return listening;
}
test.after.always(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const bomb = gzipSync(NESTING_BOMB_JSON, { level: 9 });
const gzipJson = { 'content-type': 'application/json', 'content-encoding': 'gzip' };

test('the 1 KB gzip nesting bomb with a made-up key is a 401 answered before its body has even arrived', async (t) => {
  t.true(bomb.length < 1200, `the bomb is ${bomb.length} bytes`);
  const answer = await answerBeforeBody(await portOf(t), {
    method: 'POST',
    path: '/api/ai/org-usage/events',
    headers: { ...gzipJson, authorization: `Bearer agk_${'x'.repeat(43)}` },
    body: bomb,
    sentBytes: 100,
  });
  t.is(answer.status, 401);
  t.like(JSON.parse(answer.body), { statusCode: 401 });
});

test('a route that needs a token answers a bad one 401 before reading the body, whatever its encoding', async (t) => {
  const port = await portOf(t);
  for (const headers of [gzipJson, { 'content-type': 'application/json' }]) {
    const answer = await answerBeforeBody(port, {
      method: 'POST',
      path: '/api/ai/agents',
      headers: { ...headers, authorization: 'Bearer not-a-token' },
      body: headers === gzipJson ? bomb : Buffer.from(NESTING_BOMB_JSON),
      sentBytes: 100,
    });
    t.is(answer.status, 401);
  }
});

test('an encoded body on a route that is not an ingestion route is 415 before it is inflated, also when the caller is valid', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'encoded-elsewhere');
  const answer = await answerBeforeBody(await portOf(t), {
    method: 'PUT',
    path: '/api/ai/org-usage/budget',
    headers: { ...gzipJson, authorization: `Bearer ${tenant.ownerToken}` },
    body: bomb,
    sentBytes: 100,
  });
  t.is(answer.status, 415);
  t.regex(JSON.parse(answer.body).message.en ?? JSON.parse(answer.body).message, /Content-Encoding/);
  // The same budget, unencoded, is stored: the 415 was for the encoding alone.
  await t.context.t
    .http()
    .put('/api/ai/org-usage/budget')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ monthlyLimitUsd: 10 })
    .expect(200);
  // A public route refuses an encoded body too (it has no credentials to check first).
  const login = await answerBeforeBody(await portOf(t), {
    method: 'POST',
    path: '/api/identity/auth/user/login',
    headers: gzipJson,
    body: gzipSync(JSON.stringify({ email: 'a@b.test', password: 'x' })),
    sentBytes: 10,
  });
  t.is(login.status, 415);
});

test('the events route inflates a gzip body once its key is checked; an unknown encoding is 415', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'encoded-events');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const events = { events: [usageEvent()] };
  // fetch, not supertest: supertest serializes a Buffer body again when the type is JSON.
  const post = (encoding: string, body: Buffer) =>
    fetch(`http://127.0.0.1:${port}/api/ai/org-usage/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': encoding },
      body,
    });
  const port = await portOf(t);
  const accepted = await post('gzip', gzipSync(JSON.stringify(events)));
  t.is(accepted.status, 200);
  t.deepEqual(await accepted.json(), { accepted: 1, duplicates: 0 });
  const brotli = await post('br', Buffer.from('not really brotli'));
  t.is(brotli.status, 415);
});
