import anyTest from 'ava';
import { PLANS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test.serial("the owner lists the agency's plans, oldest first", async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t.http().get('/api/plans').set('authorization', `Bearer ${token}`).expect(200);
  const seeded = response.body.filter((p: { id: string }) => [PLANS.starter.id, PLANS.legacy.id].includes(p.id));
  t.deepEqual(
    seeded.map((p: { name: string; isPublic: boolean; isActive: boolean; maxUsers: number }) => [
      p.name,
      p.isPublic,
      p.isActive,
      p.maxUsers,
    ]),
    [
      ['Starter', true, true, 10],
      ['Legacy', true, false, 5],
    ],
  );
});

test('another agency sees none of these plans and cannot change them (404 like a missing plan)', async (t) => {
  const token = await t.context.t.login('owner@other.test');
  const list = await t.context.t.http().get('/api/plans').set('authorization', `Bearer ${token}`).expect(200);
  t.false(list.body.some((p: { id: string }) => p.id === PLANS.starter.id));
  const foreign = await t.context.t
    .http()
    .patch(`/api/plans/${PLANS.starter.id}`)
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Mine' })
    .expect(404);
  const missing = await t.context.t
    .http()
    .patch('/api/plans/01900000-0000-7000-8000-00000000dead')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Mine' })
    .expect(404);
  t.deepEqual(foreign.body, missing.body);
  t.is(missing.body.errorCode, 'PLANS.PLAN_NOT_FOUND');
});

test('creating a plan answers 201 with the plan; maxUsers defaults to null', async (t) => {
  const token = await t.context.t.login('owner@other.test');
  const response = await t.context.t
    .http()
    .post('/api/plans')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Pro', isPublic: true, isActive: false })
    .expect(201);
  t.like(response.body, { name: 'Pro', isPublic: true, isActive: false, maxUsers: null });
  t.regex(response.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
});

test('plan bodies and ids are validated', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const create = await t.context.t
    .http()
    .post('/api/plans')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'X', maxUsers: 0 })
    .expect(400);
  t.deepEqual(create.body.errors.map((e: { path: string[] }) => e.path.join('.')).sort(), ['isActive', 'isPublic', 'maxUsers']);
  const badId = await t.context.t.http().patch('/api/plans/123').set('authorization', `Bearer ${token}`).send({ name: 'X' }).expect(400);
  t.deepEqual(badId.body.errors, [{ path: ['params', 'planId'], message: 'must be a UUID v7' }]);
});

test('a member without plan policies gets 403', async (t) => {
  const token = await t.context.t.login('member@demo.test');
  const list = await t.context.t.http().get('/api/plans').set('authorization', `Bearer ${token}`).expect(403);
  t.deepEqual(list.body, { statusCode: 403, message: 'Forbidden' });
  await t.context.t
    .http()
    .post('/api/plans')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'X', isPublic: true, isActive: true })
    .expect(403);
});

test.serial('Guard 2: the last active public plan cannot be deactivated or made private while the flag is on', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  for (const change of [{ isActive: false }, { isPublic: false }]) {
    const response = await t.context.t
      .http()
      .patch(`/api/plans/${PLANS.starter.id}`)
      .set('authorization', `Bearer ${token}`)
      .send(change)
      .expect(409);
    t.is(response.body.errorCode, 'PLANS.LAST_ACTIVE_PUBLIC_PLAN');
  }
  const renamed = await t.context.t
    .http()
    .patch(`/api/plans/${PLANS.starter.id}`)
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Starter+' })
    .expect(200);
  t.like(renamed.body, { name: 'Starter+', isActive: true, isPublic: true });
});

test.serial('with a second active public plan, or with the flag off, deactivating is allowed', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const auth = { authorization: `Bearer ${token}` };
  await t.context.t.http().patch(`/api/plans/${PLANS.legacy.id}`).set(auth).send({ isActive: true }).expect(200);
  const first = await t.context.t.http().patch(`/api/plans/${PLANS.starter.id}`).set(auth).send({ isActive: false }).expect(200);
  t.false(first.body.isActive);
  await t.context.t.http().patch('/api/organization/my').set(auth).send({ allowBusinessRegistration: false }).expect(200);
  const last = await t.context.t.http().patch(`/api/plans/${PLANS.legacy.id}`).set(auth).send({ isActive: false }).expect(200);
  t.false(last.body.isActive);
});
