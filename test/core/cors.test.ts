import anyTest from 'ava';
import request from 'supertest';
import { testConfig, withTestApp } from '../helpers/app.ts';

const ALLOWED = 'https://app.example.com';
const test = withTestApp(anyTest, { rateLimits: true, app: { config: testConfig({ corsOrigins: [ALLOWED, 'http://localhost:5173'] }) } });

test('an allowed origin gets its origin back, no credentials, and the rate-limit headers exposed', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/check-email')
    .set('origin', ALLOWED)
    .send({ email: 'cors-1@example.com' })
    .expect(200);
  t.is(response.headers['access-control-allow-origin'], ALLOWED);
  t.is(response.headers['access-control-allow-credentials'], undefined);
  t.deepEqual(response.headers['access-control-expose-headers']?.split(','), ['RateLimit', 'RateLimit-Policy', 'Retry-After']);
  t.truthy(response.headers['ratelimit']);
  t.regex(response.headers['vary'] ?? '', /Origin/);
});

test('a refused origin gets no CORS headers, on the request and on its preflight', async (t) => {
  const response = await t.context.t.http().get('/api/health').set('origin', 'https://evil.example.com');
  t.is(response.headers['access-control-allow-origin'], undefined);
  const preflight = await t.context.t
    .http()
    .options('/api/identity/auth/user/login')
    .set('origin', 'https://evil.example.com')
    .set('access-control-request-method', 'POST')
    .set('access-control-request-headers', 'content-type');
  t.is(preflight.status, 204);
  t.is(preflight.headers['access-control-allow-origin'], undefined);
  t.is(preflight.headers['access-control-allow-methods'], undefined);
});

test('a preflight on a limited route is answered without using a request of the budget', async (t) => {
  const email = { email: 'cors-budget@example.com' };
  for (let i = 0; i < 5; i += 1) {
    const preflight = await t.context.t
      .http()
      .options('/api/identity/auth/user/forgot-password')
      .set('origin', ALLOWED)
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'content-type');
    t.is(preflight.status, 204);
    t.is(preflight.headers['access-control-allow-origin'], ALLOWED);
    t.regex(preflight.headers['access-control-allow-methods'] ?? '', /POST/);
    t.is(preflight.headers['ratelimit'], undefined);
  }
  // forgot-password allows 3 a minute: all three are still there after five preflights.
  const remaining: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const response = await t.context.t
      .http()
      .post('/api/identity/auth/user/forgot-password')
      .set('origin', ALLOWED)
      .send(email)
      .expect(202);
    remaining.push(response.headers['ratelimit']!);
  }
  t.deepEqual(
    remaining.map((value) => /r=(\d+)/.exec(value)?.[1]),
    ['2', '1', '0'],
  );
  const denied = await t.context.t.http().post('/api/identity/auth/user/forgot-password').set('origin', ALLOWED).send(email).expect(429);
  t.is(denied.headers['access-control-allow-origin'], ALLOWED, 'a denial is readable by the allowed origin');
  t.is(denied.headers['retry-after'], String(denied.body.metadata.retryAfterSeconds));
});

test('without CORS_ORIGINS no cross-origin access is granted', async (t) => {
  const closed = request(t.context.t.rebuild({ config: testConfig() }).callback());
  const response = await closed.get('/api/health').set('origin', ALLOWED);
  t.is(response.headers['access-control-allow-origin'], undefined);
  const preflight = await closed
    .options('/api/identity/auth/user/login')
    .set('origin', ALLOWED)
    .set('access-control-request-method', 'POST');
  t.is(preflight.headers['access-control-allow-origin'], undefined);
});
