import anyTest from 'ava';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { upsertModelPricing } from '../../sql/usage-import.ts';
import { createTenant, getUsage } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKey, insertAgentOf, storedUsage, usageEvent } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const send = (t: { context: { t: TestApp } }, token: string, body: unknown) =>
  t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${token}`)
    .send(body as object);

test('events are stored once: a resent id is a duplicate and changes nothing', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-idempotent');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const first = usageEvent({ id: 'run-1/call-1', costUsd: 0.25 });
  const second = usageEvent({ id: 'run-1/call-2', costUsd: 0.5 });
  t.deepEqual((await send(t, key, { events: [first, second] }).expect(200)).body, { accepted: 2, duplicates: 0 });
  t.deepEqual((await send(t, key, { events: [second, { ...first, costUsd: 99 }, usageEvent({ id: 'run-1/call-3' })] }).expect(200)).body, {
    accepted: 1,
    duplicates: 2,
  });
  t.deepEqual((await send(t, key, { events: [usageEvent({ id: 'same' }), usageEvent({ id: 'same' })] }).expect(200)).body, {
    accepted: 1,
    duplicates: 1,
  });
  const rows = await storedUsage(t.context.t.db.pool, tenant.organizationId);
  t.is(rows.length, 4);
  t.deepEqual(rows.map((row) => row.costUsd).sort(), [0.01, 0.01, 0.25, 0.5]);
});

test('twenty concurrent sends of one batch store it once: the others count every event as a duplicate', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-concurrent');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const events = Array.from({ length: 50 }, (_, i) => usageEvent({ id: `retry-${i}`, costUsd: 0.01 }));
  const answers = await Promise.all(Array.from({ length: 20 }, () => send(t, key, { events }).expect(200)));
  const sum = (field: 'accepted' | 'duplicates') =>
    answers.reduce((total, answer) => total + (answer.body as Record<string, number>)[field]!, 0);
  t.is(sum('accepted'), 50);
  t.is(sum('duplicates'), 19 * 50);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 50);
});

test('ids are per organization: another tenant may use the same id', async (t) => {
  const one = await createTenant(t.context.t.db.pool, 'events-tenant-a');
  const two = await createTenant(t.context.t.db.pool, 'events-tenant-b');
  const event = usageEvent({ id: 'shared-id' });
  t.is((await send(t, (await createApiKey(t.context.t, one.ownerToken)).key, { events: [event] }).expect(200)).body.accepted, 1);
  t.is((await send(t, (await createApiKey(t.context.t, two.ownerToken)).key, { events: [event] }).expect(200)).body.accepted, 1);
  t.is((await storedUsage(t.context.t.db.pool, two.organizationId)).length, 1);
});

test('one invalid event is a 400 at its path and nothing of the batch is stored', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-invalid');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const events = [usageEvent(), usageEvent({ inputTokens: -1 }), usageEvent(), usageEvent({ modelId: undefined })];
  const { body } = await send(t, key, { events }).expect(400);
  t.like(body, { statusCode: 400, message: 'Validation failed' });
  t.deepEqual(
    body.errors.map((error: { path: string[] }) => error.path),
    [
      ['events', '1', 'inputTokens'],
      ['events', '3', 'modelId'],
    ],
  );
  t.deepEqual(body.errors[1], { path: ['events', '3', 'modelId'], message: 'Required' });
  const unknownField = await send(t, key, { events: [usageEvent({ organizationId: tenant.organizationId })] }).expect(400);
  t.deepEqual(unknownField.body.errors, [{ path: ['events', '0', 'organizationId'], message: 'Unrecognized key' }]);
  await send(t, key, { events: [] }).expect(400);
  await send(t, key, { events: Array.from({ length: 1001 }, () => usageEvent()) }).expect(400);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 0);
});

test("an agentId must be one of the organization's agents", async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-agents');
  const other = await createTenant(t.context.t.db.pool, 'events-agents-other');
  const own = await insertAgentOf(t.context.t.db.pool, tenant.organizationId);
  const foreign = await insertAgentOf(t.context.t.db.pool, other.organizationId);
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const { body } = await send(t, key, { events: [usageEvent({ agentId: own }), usageEvent({ agentId: foreign })] }).expect(400);
  t.deepEqual(body.errors, [{ path: ['events', '1', 'agentId'], message: 'must be an agent of the organization' }]);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 0);
  await send(t, key, { events: [usageEvent({ agentId: own })] }).expect(200);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId))[0]!.agentId, own);
});

test("a userId must be one of the organization's users: another tenant's user is refused and nothing is stored", async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-users');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const { body } = await send(t, key, { events: [usageEvent(), usageEvent({ userId: USERS.owner.id })] }).expect(400);
  t.deepEqual(body.errors, [{ path: ['events', '1', 'userId'], message: 'must be a user of the organization' }]);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 0);
});

test('a missing costUsd is priced from the price list as the event is stored; unpriced models cost 0', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-priced');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  await upsertModelPricing(t.context.t.db.pool, [
    { modelId: 'priced/model', inputUsdPerMTok: 2, outputUsdPerMTok: 8, cacheReadUsdPerMTok: 0.5 },
  ]);
  const event = { modelId: 'priced/model', inputTokens: 1_000_000, outputTokens: 500_000, cacheReadTokens: 200_000, costUsd: undefined };
  await send(t, key, { events: [usageEvent({ ...event, createdAt: '2026-05-01T10:00:00.000Z' })] }).expect(200);
  await send(t, key, { events: [usageEvent({ modelId: 'unpriced/model', costUsd: undefined })] }).expect(200);
  const rows = await storedUsage(t.context.t.db.pool, tenant.organizationId);
  t.deepEqual(
    rows.map((row) => [row.modelId, row.costUsd]),
    [
      ['priced/model', 2 + 4 + 0.1],
      ['unpriced/model', 0],
    ],
  );
});

test('the analytics endpoints show ingested events on the next uncached query', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-analytics');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  const window = { from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z' };
  t.is((await getUsage(t.context.t, tenant.ownerToken, 'summary', window).expect(200)).body.executionsCount, 0);
  await send(t, key, { events: [usageEvent({ costUsd: 1.5 }), usageEvent({ costUsd: 2 })] }).expect(200);
  // Another window: the first answer stays cached for its lifetime, as for any usage written.
  const { body } = await getUsage(t.context.t, tenant.ownerToken, 'summary', { ...window, to: '2026-05-01T12:00:00Z' }).expect(200);
  t.like(body, { executionsCount: 2, totalCostUsd: 3.5, totalTokens: 3000 });
});

test('a user token with update on organization may send events; a member may not', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'events-user-token');
  t.deepEqual((await send(t, tenant.ownerToken, { events: [usageEvent()] }).expect(200)).body, { accepted: 1, duplicates: 0 });
  t.is((await send(t, tenant.memberToken, { events: [usageEvent()] })).status, 403);
  t.is(
    (
      await t.context.t
        .http()
        .post('/api/ai/org-usage/events')
        .send({ events: [usageEvent()] })
    ).status,
    401,
  );
});
