import anyTest from 'ava';
import { createTenant } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';
import { createApiKey } from './support.ts';

const test = withTestApp(anyTest, { seed: false, rateLimits: true });

test('the events route allows 600 requests a minute per key: the 601st is a 429, another key still passes', async (t) => {
  // 600 requests: minutes on a contended machine; each assertion below restarts this timer.
  t.timeout(120_000);
  const tenant = await createTenant(t.context.t.db.pool, 'events-limit');
  const first = await createApiKey(t.context.t, tenant.ownerToken, 'first');
  const second = await createApiKey(t.context.t, tenant.ownerToken, 'second');
  // An empty batch is a 400 after the limiter has counted it: the cheapest request that counts.
  const send = (key: string) =>
    t.context.t.http().post('/api/ai/org-usage/events').set('authorization', `Bearer ${key}`).send({ events: [] });
  for (let i = 0; i < 600; i += 50) {
    const statuses = await Promise.all(Array.from({ length: 50 }, () => send(first.key).then((response) => response.status)));
    t.deepEqual([...new Set(statuses)], [400]);
  }
  const limited = await send(first.key);
  t.is(limited.status, 429);
  t.is(limited.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is((await send(second.key)).status, 400);
});
