import anyTest from 'ava';
import { sql } from 'slonik';
import { ORGANIZATIONS, PLANS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test.serial("the owner reads the agency's organization", async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t.http().get('/api/organization/my').set('authorization', `Bearer ${token}`).expect(200);
  t.like(response.body, {
    id: ORGANIZATIONS.demoAgency.id,
    name: 'Demo Agency',
    type: 'AGENCY',
    parentId: null,
    allowBusinessRegistration: true,
    userCapacity: 25,
  });
  t.regex(response.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('a member without the organization policy gets 403, and no token gets 401', async (t) => {
  const token = await t.context.t.login('member@demo.test');
  const read = await t.context.t.http().get('/api/organization/my').set('authorization', `Bearer ${token}`).expect(403);
  t.deepEqual(read.body, { statusCode: 403, message: 'Forbidden' });
  await t.context.t.http().patch('/api/organization/my').set('authorization', `Bearer ${token}`).send({ name: 'X' }).expect(403);
  await t.context.t.http().get('/api/organization/my').expect(401);
});

test('renaming does not run Guard 1, even for an agency without an active public plan', async (t) => {
  const token = await t.context.t.login('owner@other.test');
  const response = await t.context.t
    .http()
    .patch('/api/organization/my')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Other Agency Renamed' })
    .expect(200);
  t.is(response.body.name, 'Other Agency Renamed');
  t.is(response.body.allowBusinessRegistration, false);
});

test('Guard 1: turning the flag on without an active public plan is 409 and leaves it off', async (t) => {
  const token = await t.context.t.login('owner@other.test');
  const response = await t.context.t
    .http()
    .patch('/api/organization/my')
    .set('authorization', `Bearer ${token}`)
    .send({ allowBusinessRegistration: true, name: 'Should Not Stick' })
    .expect(409);
  t.is(response.body.errorCode, 'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN');
  const after = await t.context.t.http().get('/api/organization/my').set('authorization', `Bearer ${token}`).expect(200);
  t.is(after.body.allowBusinessRegistration, false);
  t.not(after.body.name, 'Should Not Stick');
});

test.serial('turning the flag off and on again works while an active public plan exists', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const off = await t.context.t
    .http()
    .patch('/api/organization/my')
    .set('authorization', `Bearer ${token}`)
    .send({ allowBusinessRegistration: false })
    .expect(200);
  t.is(off.body.allowBusinessRegistration, false);
  const on = await t.context.t
    .http()
    .patch('/api/organization/my')
    .set('authorization', `Bearer ${token}`)
    .send({ allowBusinessRegistration: true })
    .expect(200);
  t.is(on.body.allowBusinessRegistration, true);
  const exists = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT is_active FROM plans WHERE id = ${PLANS.starter.id}`);
  t.true(exists as boolean);
});

test('the update body is validated', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t
    .http()
    .patch('/api/organization/my')
    .set('authorization', `Bearer ${token}`)
    .send({ name: '', allowBusinessRegistration: 'yes', userCapacity: 100 })
    .expect(400);
  t.deepEqual(response.body.errors.map((e: { path: string[] }) => e.path.join('.')).sort(), [
    'allowBusinessRegistration',
    'name',
    'userCapacity',
  ]);
});
