import anyTest from 'ava';
import request from 'supertest';
import { fullPath } from '../../app/core/route.ts';
import { PROJECT_RATE_LIMITS } from '../../app/rate-limits.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

test("every route of the project's own limits is mounted at exactly its method and path", (t) => {
  const app = t.context.t.rebuild({
    config: testConfig({
      google: {
        clientId: 'id',
        clientSecret: 'secret',
        authorizationUrl: 'https://a.test/a',
        tokenUrl: 'https://a.test/t',
        userinfoUrl: 'https://a.test/u',
      },
    }),
  });
  const mounted = new Set(app.routes.map((route) => `${route.method} ${fullPath(route)}`));
  t.deepEqual(
    PROJECT_RATE_LIMITS.map((row) => row.endpoint).filter((endpoint) => !mounted.has(endpoint)),
    [],
  );
});

test('forgot-password allows 3 requests a minute per address, then 429 with Retry-After', async (t) => {
  const http = request(t.context.t.rebuild().callback());
  for (let i = 0; i < 3; i += 1) {
    const ok = await http
      .post('/api/identity/auth/client/forgot-password')
      .send({ email: `limit-${i}@example.com` })
      .expect(202);
    t.regex(ok.headers['ratelimit-policy'] ?? '', /q=3;w=60/);
  }
  const denied = await http.post('/api/identity/auth/client/forgot-password').send({ email: 'limit-x@example.com' }).expect(429);
  t.is(denied.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is(denied.headers['retry-after'], String(denied.body.metadata.retryAfterSeconds));
});

test('reset-password allows 5 requests a minute per address, and a sixth is 429 even with a bad body', async (t) => {
  const http = request(t.context.t.rebuild().callback());
  for (let i = 0; i < 5; i += 1) {
    const wrong = await http
      .post('/api/identity/auth/user/reset-password')
      .send({ email: 'r@example.com', code: '123456', newPassword: 'long enough pass' });
    t.is(wrong.status, 400);
  }
  const denied = await http.post('/api/identity/auth/user/reset-password').send({});
  t.is(denied.status, 429);
});
