import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import anyTest from 'ava';
import { checkJsonNesting, MAX_JSON_DEPTH } from '../../app/core/json-nesting.ts';
import { NESTING_BOMB_JSON } from '../../fuzz/bombs.ts';
import { createTenant } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { answerBeforeBody } from '../helpers/partial-body.ts';
import { createApiKey, storedUsage, usageEvent } from '../ingest/support.ts';

const test = withTestApp(anyTest, { seed: false });

const tooDeep = { statusCode: 400, message: 'Validation failed', errors: [{ path: [], message: 'JSON nested deeper than 64 levels' }] };

/** Posts raw bytes to the events route with a key, encoded as `encoding` says. */
const postEvents = (t: { context: { t: TestApp } }, key: string, body: Buffer, encoding?: 'gzip' | 'deflate') => {
  const request = t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .set('content-type', 'application/json');
  if (encoding) request.set('content-encoding', encoding);
  // As the bytes are: superagent would otherwise serialise a Buffer as JSON for a JSON content type.
  return request.serialize((bytes: Buffer) => bytes as unknown as string).send(body);
};

/** `depth` arrays, one inside the other, around `inner`. */
const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);

test('with a valid key the 1 KB gzip nesting bomb is a 400 in the validation envelope and stores nothing', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'nesting-bomb');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const bomb = gzipSync(NESTING_BOMB_JSON, { level: 9 });
  const response = await postEvents(t, key, bomb, 'gzip');
  t.is(response.status, 400);
  t.deepEqual(response.body, tooDeep);
  // The same bomb inside a well-formed body is refused alike, plain or deflated.
  const inBody = Buffer.from(`{"events":[${NESTING_BOMB_JSON.slice(0, 200_000)}${NESTING_BOMB_JSON.slice(-200_000)}]}`);
  t.deepEqual((await postEvents(t, key, inBody)).body, tooDeep);
  t.deepEqual((await postEvents(t, key, deflateSync(inBody), 'deflate')).body, tooDeep);
  t.deepEqual(await storedUsage(t.context.t.db.pool, tenant.organizationId), []);
});

test('a body too deep is refused as soon as the nesting arrives, before the rest of it is sent or inflated', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'nesting-early');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const server: Server = await new Promise((resolve) => {
    const listening = t.context.t.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const plain = Buffer.from(`{"events":${nested(400_000)}}`);
  const early = await answerBeforeBody(port, { method: 'POST', path: '/api/ai/org-usage/events', headers, body: plain, sentBytes: 1000 });
  t.is(early.status, 400);
  t.deepEqual(JSON.parse(early.body), tooDeep);
  const gzip = gzipSync(plain, { level: 9 });
  const inflated = await answerBeforeBody(port, {
    method: 'POST',
    path: '/api/ai/org-usage/events',
    headers: { ...headers, 'content-encoding': 'gzip' },
    body: gzip,
    sentBytes: gzip.length - 20,
  });
  t.is(inflated.status, 400);
  t.deepEqual(JSON.parse(inflated.body), tooDeep);
});

test('the events route still takes gzip and deflate bodies, and an inflated body over its limit is 413', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'nesting-encodings');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const body = (id: string) => Buffer.from(JSON.stringify({ events: [usageEvent({ id })] }));
  t.deepEqual((await postEvents(t, key, gzipSync(body('gz')), 'gzip')).body, { accepted: 1, duplicates: 0 });
  t.deepEqual((await postEvents(t, key, deflateSync(body('df')), 'deflate')).body, { accepted: 1, duplicates: 0 });
  t.deepEqual((await postEvents(t, key, body('plain'))).body, { accepted: 1, duplicates: 0 });
  const huge = gzipSync(Buffer.from(JSON.stringify({ events: [usageEvent({ id: 'x'.repeat(2 * 1024 * 1024) })] })));
  const tooLarge = await postEvents(t, key, huge, 'gzip');
  t.is(tooLarge.status, 413);
  t.deepEqual(tooLarge.body, { statusCode: 413, message: 'Payload too large' });
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 3);
});

test('64 levels reach the schema, 65 are refused before parsing, on any JSON route', async (t) => {
  const login = (body: string) =>
    t.context.t.http().post('/api/identity/auth/user/login').set('content-type', 'application/json').send(body);
  // Depth 64: the object plus 63 arrays; the schema judges it (email is not a string).
  const atBound = await login(`{"email":${nested(MAX_JSON_DEPTH - 1)},"password":"x"}`);
  t.is(atBound.status, 400);
  t.deepEqual(
    atBound.body.errors.map((issue: { path: string[] }) => issue.path),
    [['email']],
  );
  const overBound = await login(`{"email":${nested(MAX_JSON_DEPTH)},"password":"x"}`);
  t.deepEqual(overBound.body, tooDeep);
});

test('brackets inside strings do not count, escaped quotes included', async (t) => {
  t.notThrows(() => checkJsonNesting(JSON.stringify({ text: nested(1000), quoted: `\\"${'['.repeat(500)}"{{{` })));
  t.notThrows(() => checkJsonNesting(nested(MAX_JSON_DEPTH)));
  t.throws(() => checkJsonNesting(nested(MAX_JSON_DEPTH + 1)), { message: 'Validation failed' });
  // A string that does not end leaves the rest unread (JSON.parse refuses it); closing brackets never go below zero.
  t.notThrows(() => checkJsonNesting(`["${'['.repeat(1000)}`));
  t.throws(() => checkJsonNesting(']]]]' + nested(MAX_JSON_DEPTH + 1)));
  const login = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'nobody@example.test', password: `"${nested(MAX_JSON_DEPTH + 1)}\\` });
  t.is(login.status, 401);
});

test('the reader keeps its refusals: malformed JSON, a scalar body and a __proto__ key are 400 Malformed JSON', async (t) => {
  const malformed = { statusCode: 400, message: 'Validation failed', errors: [{ path: [], message: 'Malformed JSON' }] };
  for (const body of [
    '{"email": "a@b.co",',
    '"just a string"',
    '42',
    '{"email":"a@b.co","password":"x","__proto__":{"admin":true}}',
    '{"\\u005f_proto__":{}}',
  ]) {
    const response = await t.context.t.http().post('/api/identity/auth/user/login').set('content-type', 'application/json').send(body);
    t.deepEqual(response.body, malformed, body);
  }
});
