import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { createTenant } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKey, usageEvent } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

const sendEvents = (t: { context: { t: TestApp } }, key: string, events: unknown[]) =>
  t.context.t.http().post('/api/ai/org-usage/events').set('authorization', `Bearer ${key}`).send({ events });

test('a new key is shown once, starts agk_, carries 256 bits and is listed without the key', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-create');
  const created = await createApiKey(t.context.t, tenant.ownerToken, 'ci worker');
  t.regex(created.key, /^agk_[A-Za-z0-9_-]{43}$/);
  t.is(created.prefix, created.key.slice(0, 12));
  t.like(created, { name: 'ci worker', scopes: ['usage:write'], lastUsedAt: null });
  const { body } = await t.context.t.http().get('/api/api-keys').set('authorization', `Bearer ${tenant.ownerToken}`).expect(200);
  t.is(body.apiKeys.length, 1);
  t.is(body.apiKeys[0].id, created.id);
  t.false('key' in body.apiKeys[0]);
  t.false(JSON.stringify(body).includes(created.key.slice(12)));
});

test('the database holds a keyed hash of the key, never the key', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-hash');
  const created = await createApiKey(t.context.t, tenant.ownerToken);
  const row = await t.context.t.db.pool.one(sql.type(z.object({ keyHash: z.instanceof(Buffer), all: z.string() }))`
    SELECT key_hash AS "keyHash", row_to_json(api_keys)::text AS "all" FROM api_keys WHERE id = ${created.id}`);
  t.is(row.keyHash.length, 32);
  t.false(row.all.includes(created.key.slice(4)));
});

test('a key authenticates the events route and is a 401 on every other route', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-scope');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  await sendEvents(t, key, [usageEvent()]).expect(200);
  for (const path of ['/api/api-keys', '/api/ai/agents', '/api/organization/my', '/api/ai/org-usage/summary']) {
    const response = await t.context.t.http().get(path).set('authorization', `Bearer ${key}`);
    t.is(response.status, 401, path);
  }
  const create = await t.context.t
    .http()
    .post('/api/api-keys')
    .set('authorization', `Bearer ${key}`)
    .send({ name: 'x', scopes: ['usage:write'] });
  t.is(create.status, 401);
});

test('a deleted key is refused on the next request', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-delete');
  const created = await createApiKey(t.context.t, tenant.ownerToken);
  await sendEvents(t, created.key, [usageEvent()]).expect(200);
  await t.context.t.http().delete(`/api/api-keys/${created.id}`).set('authorization', `Bearer ${tenant.ownerToken}`).expect(204);
  const refused = await sendEvents(t, created.key, [usageEvent()]);
  t.is(refused.status, 401);
  t.deepEqual(refused.body, { statusCode: 401, message: 'Invalid or missing API key' });
  await t.context.t.http().delete(`/api/api-keys/${created.id}`).set('authorization', `Bearer ${tenant.ownerToken}`).expect(404);
});

test('made-up, truncated and other tenants’ keys are 401; another tenant cannot delete a key', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-forged');
  const other = await createTenant(t.context.t.db.pool, 'keys-forged-other');
  const created = await createApiKey(t.context.t, tenant.ownerToken);
  for (const forged of [`agk_${'A'.repeat(43)}`, created.key.slice(0, -1), `${created.key}x`, 'agk_']) {
    t.is((await sendEvents(t, forged, [usageEvent()])).status, 401, forged);
  }
  await t.context.t.http().delete(`/api/api-keys/${created.id}`).set('authorization', `Bearer ${other.ownerToken}`).expect(404);
  await sendEvents(t, created.key, [usageEvent()]).expect(200);
});

test('lastUsedAt is written on first use and then at most once a minute', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-last-used');
  let now = new Date('2026-06-01T10:00:00.000Z');
  const app = t.context.t.rebuild({ clock: () => now });
  const { default: request } = await import('supertest');
  const http = () => request(app.callback());
  const created = await createApiKey({ ...t.context.t, http }, tenant.ownerToken);
  const lastUsed = async () =>
    (
      (await http().get('/api/api-keys').set('authorization', `Bearer ${tenant.ownerToken}`).expect(200)).body.apiKeys[0] as {
        lastUsedAt: string | null;
      }
    ).lastUsedAt;
  const send = () =>
    http()
      .post('/api/ai/org-usage/events')
      .set('authorization', `Bearer ${created.key}`)
      .send({ events: [usageEvent()] })
      .expect(200);
  await send();
  t.is(await lastUsed(), '2026-06-01T10:00:00.000Z');
  now = new Date('2026-06-01T10:00:59.000Z');
  await send();
  t.is(await lastUsed(), '2026-06-01T10:00:00.000Z');
  now = new Date('2026-06-01T10:01:00.000Z');
  await send();
  t.is(await lastUsed(), '2026-06-01T10:01:00.000Z');
});

test('only users with update on organization manage keys; a member gets 403', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'keys-member');
  for (const request of [
    t.context.t
      .http()
      .post('/api/api-keys')
      .send({ name: 'x', scopes: ['usage:write'] }),
    t.context.t.http().get('/api/api-keys'),
  ]) {
    t.is((await request.set('authorization', `Bearer ${tenant.memberToken}`)).status, 403);
  }
  const bad = await t.context.t
    .http()
    .post('/api/api-keys')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ name: 'x', scopes: ['admin'] });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.errors[0].path, ['scopes', '0']);
});
