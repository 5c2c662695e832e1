import anyTest from 'ava';
import { createTenant } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';
import { OTLP_BODY_LIMIT_BYTES } from '../../app/otlp/routes.ts';
import { createApiKey } from './support.ts';

const test = withTestApp(anyTest, { seed: false, rateLimits: true });

test('the OTLP route allows 600 requests a minute per key: the 601st is a 429 with RateLimit headers, another key still passes', async (t) => {
  // 600 requests: minutes on a contended machine; each assertion below restarts this timer.
  t.timeout(120_000);
  const tenant = await createTenant(t.context.t.db.pool, 'otlp-limit');
  const first = await createApiKey(t.context.t, tenant.ownerToken, 'first');
  const second = await createApiKey(t.context.t, tenant.ownerToken, 'second');
  // A body of the wrong type is a 415 after the limiter has counted it: the cheapest request that counts.
  const send = (key: string) =>
    t.context.t.http().post('/api/otlp/v1/traces').set('authorization', `Bearer ${key}`).set('content-type', 'text/plain').send('x');
  const first600 = [];
  for (let i = 0; i < 600; i += 50) {
    first600.push(...(await Promise.all(Array.from({ length: 50 }, () => send(first.key)))));
  }
  t.deepEqual([...new Set(first600.map((response) => response.status))], [415]);
  t.is(first600[0]!.headers['ratelimit-policy'], '"otlp-traces";q=600;w=60');
  const limited = await send(first.key);
  t.is(limited.status, 429);
  t.is(limited.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is(limited.headers['ratelimit-policy'], '"otlp-traces";q=600;w=60');
  t.regex(limited.headers['ratelimit'] ?? '', /^"otlp-traces";r=0;t=\d+$/);
  t.is(limited.headers['retry-after'], String(limited.body.metadata.retryAfterSeconds));
  t.is((await send(second.key)).status, 415);
});

test('an OTLP body over the declared limit is a 413 in the error envelope, naming the limit', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'otlp-too-large');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const post = () =>
    t.context.t.http().post('/api/otlp/v1/traces').set('authorization', `Bearer ${key}`).set('content-type', 'application/x-protobuf');
  const announced = await post().send(Buffer.alloc(OTLP_BODY_LIMIT_BYTES + 1));
  t.is(announced.status, 413);
  t.deepEqual(announced.body, {
    statusCode: 413,
    message: `Payload too large: at most ${OTLP_BODY_LIMIT_BYTES} bytes, also after inflation`,
  });
});
