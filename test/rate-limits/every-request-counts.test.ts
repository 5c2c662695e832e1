import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

/** A documentation-range client address per test, so that tests never share a window. */
const clientIp = () => `203.0.113.${randomInt(1, 255)}`;

/** Sends `count + 1` requests with the given broken body and answers their statuses. */
async function statusesOf(
  server: Parameters<typeof request>[0],
  path: string,
  count: number,
  send: (req: request.Test) => request.Test,
): Promise<number[]> {
  const ip = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i <= count; i++) {
    const response = await send(request(server).post(path).set('x-forwarded-for', ip));
    statuses.push(response.status);
  }
  return statuses;
}

const malformed = (req: request.Test) => req.set('content-type', 'application/json').send('{"email": "a@b.co",');
const oversized = (req: request.Test) => req.send({ email: 'a@b.co', password: 'x'.repeat(200 * 1024) });
const wrongType = (req: request.Test) => req.set('content-type', 'text/plain').send('email=a@b.co');

test('malformed JSON counts: check-email answers 400 three times, then 429', async (t) => {
  const server = t.context.t.rebuild().callback();
  t.deepEqual(await statusesOf(server, '/api/identity/auth/user/check-email', 3, malformed), [400, 400, 400, 429]);
});

test('an oversized body counts: user register answers 413 five times, then 429', async (t) => {
  const server = t.context.t.rebuild().callback();
  t.deepEqual(await statusesOf(server, '/api/identity/auth/user/register', 5, oversized), [...Array(5).fill(413), 429]);
});

test('a wrong content type counts: client login answers 415 ten times, then 429', async (t) => {
  const server = t.context.t.rebuild().callback();
  t.deepEqual(await statusesOf(server, '/api/identity/auth/client/login', 10, wrongType), [...Array(10).fill(415), 429]);
});

test('every kind of broken body shares one window: verify-email turns to 429 after five of them, valid bodies too', async (t) => {
  const server = t.context.t.rebuild().callback();
  const ip = clientIp();
  const path = '/api/identity/auth/client/verify-email';
  const statuses: number[] = [];
  for (const send of [malformed, oversized, wrongType, malformed, oversized, wrongType]) {
    statuses.push((await send(request(server).post(path).set('x-forwarded-for', ip))).status);
  }
  const valid = await request(server).post(path).set('x-forwarded-for', ip).send({ email: 'a@b.co', code: '123456' });
  t.deepEqual(statuses, [400, 413, 415, 400, 413, 429]);
  t.is(valid.status, 429);
  t.is(valid.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is(valid.headers['retry-after'], String(valid.body.metadata.retryAfterSeconds));
});

test('a malformed body with an invalid token is a 401 (credentials before the body) and counts against change-password by address', async (t) => {
  const server = t.context.t.rebuild().callback();
  const statuses = await statusesOf(server, '/api/identity/auth/user/change-password', 3, (req) =>
    malformed(req.set('authorization', 'Bearer not-a-token')),
  );
  t.deepEqual(statuses, [401, 401, 401, 429]);
});
