import anyTest from 'ava';
import { createTenant } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';
import { createApiKey, storedUsage, usageEvent } from './support.ts';

const test = withTestApp(anyTest);

const price = (modelId: string, input: number) => ({ modelId, inputUsdPerMTok: input, outputUsdPerMTok: 4, cacheReadUsdPerMTok: 0.25 });

test('the service admin replaces prices over HTTP; later events use them, stored events keep their cost', async (t) => {
  const admin = await t.context.t.login('admin@platform.test');
  const tenant = await createTenant(t.context.t.db.pool, 'pricing-http');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const put = await t.context.t
    .http()
    .put('/api/ai/model-pricing')
    .set('authorization', `Bearer ${admin}`)
    .send([price('http/model', 1)])
    .expect(200);
  t.deepEqual(
    put.body.find((row: { modelId: string }) => row.modelId === 'http/model'),
    price('http/model', 1),
  );
  const event = { modelId: 'http/model', inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, costUsd: undefined };
  await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .send({ events: [usageEvent(event)] })
    .expect(200);
  await t.context.t
    .http()
    .put('/api/ai/model-pricing')
    .set('authorization', `Bearer ${admin}`)
    .send([price('http/model', 3)])
    .expect(200);
  await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .send({ events: [usageEvent({ ...event, createdAt: '2026-05-01T11:00:00.000Z' })] })
    .expect(200);
  t.deepEqual(
    (await storedUsage(t.context.t.db.pool, tenant.organizationId)).map((row) => row.costUsd),
    [1, 3],
  );
  const list = await t.context.t.http().get('/api/ai/model-pricing').set('authorization', `Bearer ${tenant.memberToken}`).expect(200);
  t.deepEqual(
    list.body.find((row: { modelId: string }) => row.modelId === 'http/model'),
    price('http/model', 3),
  );
});

test('only the service admin may change prices; a bad or repeated entry is a 400 that changes nothing', async (t) => {
  const owner = await t.context.t.login('owner@demo.test');
  const admin = await t.context.t.login('admin@platform.test');
  await t.context.t
    .http()
    .put('/api/ai/model-pricing')
    .set('authorization', `Bearer ${owner}`)
    .send([price('x/model', 1)])
    .expect(403);
  const bad = await t.context.t
    .http()
    .put('/api/ai/model-pricing')
    .set('authorization', `Bearer ${admin}`)
    .send([price('y/model', -1), { ...price('y/model', 1), extra: 1 }])
    .expect(400);
  t.deepEqual(
    bad.body.errors.map((error: { path: string[] }) => error.path),
    [
      ['0', 'inputUsdPerMTok'],
      ['1', 'extra'],
    ],
  );
  const repeated = await t.context.t
    .http()
    .put('/api/ai/model-pricing')
    .set('authorization', `Bearer ${admin}`)
    .send([price('z/model', 1), price('z/model', 2)])
    .expect(400);
  t.deepEqual(repeated.body.errors, [{ path: ['1', 'modelId'], message: 'repeats entry 0' }]);
  const list = await t.context.t.http().get('/api/ai/model-pricing').set('authorization', `Bearer ${owner}`).expect(200);
  t.false(list.body.some((row: { modelId: string }) => ['x/model', 'y/model', 'z/model'].includes(row.modelId)));
});
