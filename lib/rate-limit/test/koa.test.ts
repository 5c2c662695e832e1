import { randomUUID } from 'node:crypto';
import test from 'ava';
import Koa, { type Middleware } from 'koa';
import request from 'supertest';
import type { Duration } from '../src/duration.ts';
import { rateLimit, type RateLimitOptions } from '../src/koa/index.ts';
import { MemoryStore } from '../src/memory-store.ts';
import { FakeClock } from './helpers/fake-clock.ts';

type Declaration = Partial<RateLimitOptions> & Pick<RateLimitOptions, 'windowMs' | 'limit'>;

/** A Koa app trusting exactly one proxy hop, with `before` middlewares, the limiter, then a 200 route. */
function appWith(declaration: Declaration, before: Middleware[] = []) {
  const clock = new FakeClock(0);
  const app = new Koa();
  app.proxy = true;
  app.maxIpsCount = 1;
  for (const mw of before) app.use(mw);
  app.use(rateLimit({ identifierType: 'ip', now: clock.now, store: new MemoryStore({ sweepIntervalMs: 0 }), ...declaration }));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  return { clock, agent: request(app.callback()) };
}

test('answers 429 with the neutral default body and Retry-After once the limit is reached', async (t) => {
  const { clock, agent } = appWith({ windowMs: '1m', limit: 2 });
  await agent.get('/x').expect(200);
  await agent.get('/x').expect(200);
  clock.advance(18_000);
  const res = await agent.get('/x').expect(429);
  t.deepEqual(res.body, { statusCode: 429, message: 'Too Many Requests' });
  t.is(res.headers['retry-after'], '42');
  t.is(res.headers['ratelimit-policy'], '"default";q=2;w=60');
  t.is(res.headers['ratelimit'], '"default";r=0;t=42');
});

test('never sends a Retry-After below 1 second', async (t) => {
  const { clock, agent } = appWith({ windowMs: '1m', limit: 1, errorBody: (denial) => denial });
  await agent.get('/x').expect(200);
  clock.advance(59_700);
  const res = await agent.get('/x').expect(429);
  t.is(res.headers['retry-after'], '1');
  t.deepEqual(res.body, { retryAfterSeconds: 1, limit: 1, windowMs: 60_000 });
});

test('a window in milliseconds and the same window as a declaration string send the same headers', async (t) => {
  const asNumber = await appWith({ windowMs: 30_000, limit: 3 }).agent.get('/x').expect(200);
  const asString = await appWith({ windowMs: '30s', limit: 3 }).agent.get('/x').expect(200);
  t.is(asNumber.headers['ratelimit-policy'], '"default";q=3;w=30');
  t.is(asNumber.headers['ratelimit-policy'], asString.headers['ratelimit-policy']);
  t.is(asNumber.headers['ratelimit'], asString.headers['ratelimit']);
});

test('sets RateLimit-Policy and RateLimit on allowed responses', async (t) => {
  const { clock, agent } = appWith({ windowMs: '30s', limit: 3, policyName: 'login' });
  const first = await agent.get('/x').expect(200);
  t.is(first.headers['ratelimit-policy'], '"login";q=3;w=30');
  t.is(first.headers['ratelimit'], '"login";r=2;t=30');
  clock.advance(10_500);
  const second = await agent.get('/x').expect(200);
  t.is(second.headers['ratelimit'], '"login";r=1;t=20');
});

test('rounds a sub-second window up to w=1', async (t) => {
  const { agent } = appWith({ windowMs: '500ms', limit: 1 });
  const res = await agent.get('/x').expect(200);
  t.is(res.headers['ratelimit-policy'], '"default";q=1;w=1');
  t.is(res.headers['ratelimit'], '"default";r=0;t=1');
});

test('Retry-After is never earlier than the RateLimit reset t', async (t) => {
  const { clock, agent } = appWith({ windowMs: '10s', limit: 3 });
  for (const step of [0, 1_300, 2_900]) {
    clock.advance(step);
    await agent.get('/x').expect(200);
  }
  let denials = 0;
  for (const step of [100, 2_345, 4_000, 1_500]) {
    clock.advance(step);
    const res = await agent.get('/x');
    if (res.status === 200) continue;
    denials++;
    const reset = Number(/;t=(\d+)$/.exec(res.headers['ratelimit'] as string)?.[1]);
    t.true(Number(res.headers['retry-after']) >= reset, `${res.headers['retry-after']} >= ${reset}`);
  }
  t.is(denials, 2);
});

test('a rotating spoofed left-hand X-Forwarded-For entry does not escape the ip limit', async (t) => {
  const { agent } = appWith({ windowMs: '1m', limit: 2 });
  const statuses = [];
  for (let i = 0; i < 4; i++) {
    const res = await agent.get('/x').set('X-Forwarded-For', `${randomUUID().slice(0, 8)}, 10.0.0.1`);
    statuses.push(res.status);
  }
  t.deepEqual(statuses, [200, 200, 429, 429]);
  await agent.get('/x').set('X-Forwarded-For', '10.0.0.2').expect(200);
});

test('userId limits the resolved user across IPs and falls back to the IP without a user', async (t) => {
  const { agent } = appWith({
    windowMs: '1m',
    limit: 1,
    identifierType: 'userId',
    resolveUser: async (ctx) => (ctx.get('x-test-user') === '' ? undefined : { sub: ctx.get('x-test-user') }),
  });
  await agent.get('/x').set('X-Forwarded-For', '10.0.0.1').set('x-test-user', 'alice').expect(200);
  await agent.get('/x').set('X-Forwarded-For', '10.0.0.2').set('x-test-user', 'alice').expect(429);
  await agent.get('/x').set('X-Forwarded-For', '10.0.0.2').set('x-test-user', 'bob').expect(200);
  await agent.get('/x').set('X-Forwarded-For', '10.0.0.1').expect(200);
  t.is((await agent.get('/x').set('X-Forwarded-For', '10.0.0.1')).status, 429);
  t.is((await agent.get('/x').set('X-Forwarded-For', '10.0.0.3')).status, 200);
});

test('userId reads ctx.state.user by default and treats a throwing resolveUser as no user', async (t) => {
  const setUser: Middleware = (ctx, next) => {
    if (ctx.get('x-test-user') !== '') ctx.state['user'] = { id: Number(ctx.get('x-test-user')) };
    return next();
  };
  const byState = appWith({ windowMs: '1m', limit: 1, identifierType: 'userId' }, [setUser]).agent;
  await byState.get('/x').set('X-Forwarded-For', '10.0.0.1').set('x-test-user', '7').expect(200);
  await byState.get('/x').set('X-Forwarded-For', '10.0.0.9').set('x-test-user', '7').expect(429);

  const throwing = appWith({
    windowMs: '1m',
    limit: 1,
    identifierType: 'userId',
    resolveUser: () => {
      throw new Error('invalid signature');
    },
  }).agent;
  await throwing.get('/x').set('X-Forwarded-For', '10.0.0.1').expect(200);
  await throwing.get('/x').set('X-Forwarded-For', '10.0.0.2').expect(200);
  t.is((await throwing.get('/x').set('X-Forwarded-For', '10.0.0.1')).status, 429);
});

test('keys routes by method and matched route pattern, or by an explicit endpoint', async (t) => {
  const matched: Middleware = (ctx, next) => {
    if (ctx.path.startsWith('/users/')) (ctx as { _matchedRoute?: string })._matchedRoute = '/users/:id';
    return next();
  };
  const { agent } = appWith({ windowMs: '1m', limit: 1 }, [matched]);
  await agent.get('/users/1').expect(200);
  await agent.get('/users/2').expect(429);
  await agent.post('/users/2').expect(200);
  await agent.get('/other').expect(200);
  t.is((await agent.get('/users/3')).status, 429, 'back on GET /users/:id after other routes: its log, not theirs');
  t.is((await agent.get('/other')).status, 429, 'GET /other has a log of its own');

  const pinned = appWith({ windowMs: '1m', limit: 1, endpoint: 'login' }).agent;
  await pinned.get('/a').expect(200);
  t.is((await pinned.post('/b')).status, 429);
});

test('an identifier function overrides the default resolution', async (t) => {
  const { agent } = appWith({ windowMs: '1m', limit: 1, identifier: (ctx) => ctx.get('x-tenant') });
  await agent.get('/x').set('x-tenant', 'a').set('X-Forwarded-For', '10.0.0.1').expect(200);
  await agent.get('/x').set('x-tenant', 'b').set('X-Forwarded-For', '10.0.0.1').expect(200);
  t.is((await agent.get('/x').set('x-tenant', 'a').set('X-Forwarded-For', '10.0.0.2')).status, 429);
});

test('errorBody overrides the 429 body and receives the wait', async (t) => {
  const { agent } = appWith({
    windowMs: '5s',
    limit: 1,
    errorBody: ({ retryAfterSeconds, limit }) => ({ wait: retryAfterSeconds, limit }),
  });
  await agent.get('/x').expect(200);
  t.deepEqual((await agent.get('/x').expect(429)).body, { wait: 5, limit: 1 });
});

test('denied requests never reach the route', async (t) => {
  let reached = 0;
  const app = new Koa();
  app.use(rateLimit({ windowMs: '1m', limit: 1, identifierType: 'ip' }));
  app.use((ctx) => {
    reached++;
    ctx.body = 'ok';
  });
  const agent = request(app.callback());
  await agent.get('/').expect(200);
  await agent.get('/').expect(429);
  t.is(reached, 1);
});

test('invalid declarations throw at declaration time, naming the value', (t) => {
  const base = { windowMs: '1m', limit: 1, identifierType: 'ip' } as const;
  // Strings the `Duration` type already refuses, as JavaScript callers could still pass them.
  t.throws(() => rateLimit({ ...base, windowMs: '1h' as Duration }), { message: /"1h"/ });
  t.throws(() => rateLimit({ ...base, windowMs: '60' as Duration }), { message: /"60"/ });
  t.throws(() => rateLimit({ ...base, windowMs: 2.5 }), { message: /window 2\.5/ });
  t.throws(() => rateLimit({ ...base, limit: 0 }), { message: /limit 0/ });
  t.throws(() => rateLimit({ ...base, limit: 2.5 }), { message: /limit 2\.5/ });
  t.throws(() => rateLimit({ ...base, identifierType: 'email' as 'ip' }), { message: /"email"/ });
  t.throws(() => rateLimit({ ...base, policyName: 'näme' }), { message: /"näme"/ });
});
