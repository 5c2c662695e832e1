import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { isBusinessRegistrationOpen } from '../../app/organization/business-registration-flag.ts';
import { hasActivePublicPlan } from '../../app/plans/active-public-plan.ts';
import { hasUserCapacity } from '../../app/subscriptions/user-capacity.ts';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { PASSWORD, type T } from './principals.ts';

const test = withTestApp(anyTest);

type AgencySetup = { flag: boolean; plan?: { isPublic: boolean; isActive: boolean }; capacity: number | null };

/** An agency in a state written directly, as data predating the guards would be (docs/interface.md §6). */
async function agency(t: T, setup: AgencySetup): Promise<string> {
  const id = uuidv7();
  const db = t.context.t.db.pool;
  await db.query(sql.unsafe`
    INSERT INTO organizations (id, name, type, allow_business_registration, user_capacity)
    VALUES (${id}, 'Gate Agency', 'AGENCY', ${setup.flag}, ${setup.capacity})`);
  if (setup.plan) {
    await db.query(sql.unsafe`
      INSERT INTO plans (id, organization_id, name, is_public, is_active)
      VALUES (${uuidv7()}, ${id}, 'Plan', ${setup.plan.isPublic}, ${setup.plan.isActive})`);
  }
  return id;
}

const registerBusiness = (t: T, agencyId: string, email = `${uuidv7()}@biz.test`) =>
  t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({ email, password: PASSWORD, name: 'Biz Owner', businessName: 'Biz Ltd', agencyId });

const ACTIVE_PUBLIC = { isPublic: true, isActive: true };

test('a business registers under Demo Agency: a BUSINESS organization under the agency and its owner', async (t) => {
  const response = await registerBusiness(t, ORGANIZATIONS.demoAgency.id, 'Owner@Biz.test').expect(201);
  t.deepEqual(Object.keys(response.body).sort(), ['email', 'organizationId', 'userId']);
  t.is(response.body.email, 'owner@biz.test');
  const organization = await t.context.t.db.pool.one(sql.type(z.object({ type: z.string(), parentId: z.string(), name: z.string() }))`
    SELECT type, parent_id AS "parentId", name FROM organizations WHERE id = ${response.body.organizationId}`);
  t.deepEqual(organization, { type: 'BUSINESS', parentId: ORGANIZATIONS.demoAgency.id, name: 'Biz Ltd' });
});

test('an agency failing all three gates answers gate 1: 403 IDENTITY.BUSINESS_REGISTRATION_DISABLED', async (t) => {
  const id = await agency(t, { flag: false, capacity: 0 });
  const response = await registerBusiness(t, id).expect(403);
  t.is(response.body.errorCode, 'IDENTITY.BUSINESS_REGISTRATION_DISABLED');
  t.deepEqual(Object.keys(response.body).sort(), ['errorCode', 'message', 'statusCode']);
});

test('with the flag on, no active public plan and no capacity, gate 2 answers 409 PLANS.NO_ACTIVE_PUBLIC_PLAN', async (t) => {
  const id = await agency(t, { flag: true, plan: { isPublic: true, isActive: false }, capacity: 0 });
  const response = await registerBusiness(t, id).expect(409);
  t.is(response.body.errorCode, 'PLANS.NO_ACTIVE_PUBLIC_PLAN');
});

test('an active but private plan does not pass gate 2', async (t) => {
  const id = await agency(t, { flag: true, plan: { isPublic: false, isActive: true }, capacity: null });
  const response = await registerBusiness(t, id).expect(409);
  t.is(response.body.errorCode, 'PLANS.NO_ACTIVE_PUBLIC_PLAN');
});

test('with the flag on and a plan but no capacity, gate 3 answers 409 SUBSCRIPTION.USER_LIMIT_REACHED', async (t) => {
  const id = await agency(t, { flag: true, plan: ACTIVE_PUBLIC, capacity: 0 });
  const response = await registerBusiness(t, id).expect(409);
  t.is(response.body.errorCode, 'SUBSCRIPTION.USER_LIMIT_REACHED');
});

test('capacity counts the users of the businesses under the agency', async (t) => {
  const id = await agency(t, { flag: true, plan: ACTIVE_PUBLIC, capacity: 1 });
  await registerBusiness(t, id).expect(201);
  const response = await registerBusiness(t, id).expect(409);
  t.is(response.body.errorCode, 'SUBSCRIPTION.USER_LIMIT_REACHED');
});

test('a taken email is checked after the gates', async (t) => {
  const closed = await agency(t, { flag: false, plan: ACTIVE_PUBLIC, capacity: null });
  const gated = await registerBusiness(t, closed, USERS.owner.email).expect(403);
  t.is(gated.body.errorCode, 'IDENTITY.BUSINESS_REGISTRATION_DISABLED');
  const open = await agency(t, { flag: true, plan: ACTIVE_PUBLIC, capacity: null });
  const taken = await registerBusiness(t, open, USERS.owner.email).expect(409);
  t.is(taken.body.errorCode, 'IDENTITY.EMAIL_TAKEN');
  const businesses = await t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM organizations WHERE parent_id = ${open}`);
  t.is(businesses, 0);
});

test('business registration validates its body', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({ email: 'a@b.test', password: PASSWORD, name: 'A', agencyId: 'nope' })
    .expect(400);
  t.deepEqual(response.body.errors, [
    { path: ['businessName'], message: 'Required' },
    { path: ['agencyId'], message: 'must be a UUID v7' },
  ]);
});

test('the flag read is true only for an existing agency with the flag on', async (t) => {
  const db = t.context.t.db.pool;
  const business = await registerBusiness(t, ORGANIZATIONS.demoAgency.id).expect(201);
  t.true(await isBusinessRegistrationOpen(db, ORGANIZATIONS.demoAgency.id));
  t.false(await isBusinessRegistrationOpen(db, '01900000-0000-7000-8000-00000000dead'), 'missing organization');
  t.false(await isBusinessRegistrationOpen(db, business.body.organizationId), 'a BUSINESS organization');
  t.false(await isBusinessRegistrationOpen(db, ORGANIZATIONS.otherAgency.id), 'flag off');
  t.false(await isBusinessRegistrationOpen(db, ORGANIZATIONS.platform.id), 'a PLATFORM organization');
});

test('the plan and capacity checks answer for an agency as the gates need', async (t) => {
  const db = t.context.t.db.pool;
  t.true(await hasActivePublicPlan(db, ORGANIZATIONS.demoAgency.id));
  t.false(await hasActivePublicPlan(db, ORGANIZATIONS.otherAgency.id));
  t.true(await hasUserCapacity(db, ORGANIZATIONS.demoAgency.id));
  t.true(await hasUserCapacity(db, await agency(t, { flag: false, capacity: null })), 'NULL capacity is unlimited');
  t.false(await hasUserCapacity(db, '01900000-0000-7000-8000-00000000dead'), 'a missing agency has none');
});
