import anyTest from 'ava';
import { ORGANIZATIONS, PLANS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { as, business, owner, plan } from './support.ts';

const test = withTestApp(anyTest);

const FORBIDDEN = { statusCode: 403, message: 'Forbidden' };

test('a business registers on the plan it names, or on the agency’s oldest active public plan', async (t) => {
  const growth = await plan(t, { priceUsdPerMonth: 20, limits: { maxAgents: 2 } });
  const named = await business(t, 'Named', growth);
  const mine = await as(t, named.token).get('/api/organization/my').expect(200);
  t.deepEqual(mine.body.plan, {
    id: growth,
    name: mine.body.plan.name,
    priceUsdPerMonth: 20,
    limits: { maxAgents: 2, maxUsers: null, maxEndUserMessagesPerMonth: null, maxDocumentsMb: null, monthlyUsageUsd: null },
  });
  const unnamed = await business(t, 'Unnamed');
  const theirs = await as(t, unnamed.token).get('/api/organization/my').expect(200);
  t.is(theirs.body.plan.id, PLANS.starter.id);
  t.false('usageMarkupPercent' in theirs.body.plan);
  // An agency's own organization is on no plan.
  t.is(
    (
      await as(t, await owner(t))
        .get('/api/organization/my')
        .expect(200)
    ).body.plan,
    null,
  );
});

test('registering on a plan that is private, inactive, another agency’s or missing is 409 PLANS.PLAN_NOT_AVAILABLE', async (t) => {
  const hidden = await plan(t, { isPublic: false });
  const inactive = PLANS.legacy.id;
  const otherOwner = await t.context.t.login(USERS.otherOwner.email);
  const foreign = (await as(t, otherOwner).post('/api/plans', { name: 'Theirs', isPublic: true, isActive: true }).expect(201)).body.id;
  for (const planId of [hidden, inactive, foreign, '01900000-0000-7000-8000-00000000dead']) {
    const refused = await t.context.t
      .http()
      .post('/api/identity/auth/user/register/business')
      .send({
        email: `x-${planId}@business.test`,
        password: 'demo-password-1',
        name: 'X',
        businessName: 'X',
        agencyId: ORGANIZATIONS.demoAgency.id,
        planId,
      })
      .expect(409);
    t.is(refused.body.errorCode, 'PLANS.PLAN_NOT_AVAILABLE');
  }
});

test('the agency moves a business to any of its active plans, private ones too; the business sees it on its next request', async (t) => {
  const shop = await business(t, 'Shop');
  const hidden = await plan(t, { isPublic: false, priceUsdPerMonth: 99 });
  const moved = await as(t, await owner(t))
    .put(`/api/agency/businesses/${shop.id}/plan`, { planId: hidden })
    .expect(200);
  t.like(moved.body, { id: shop.id, type: 'BUSINESS', parentId: ORGANIZATIONS.demoAgency.id, plan: { id: hidden, priceUsdPerMonth: 99 } });
  t.is((await as(t, shop.token).get('/api/organization/my').expect(200)).body.plan.id, hidden);
  const inactive = await as(t, await owner(t))
    .put(`/api/agency/businesses/${shop.id}/plan`, { planId: PLANS.legacy.id })
    .expect(409);
  t.is(inactive.body.errorCode, 'PLANS.PLAN_NOT_AVAILABLE');
});

test('only the agency’s staff with update on plan move its own businesses: others are 403 or 404', async (t) => {
  const shop = await business(t, 'Guarded');
  const path = `/api/agency/businesses/${shop.id}/plan`;
  const body = { planId: PLANS.starter.id };
  // The business's own owner (no plan grants), and the agency owner acting in the business: 403.
  t.deepEqual((await as(t, shop.token).put(path, body).expect(403)).body, FORBIDDEN);
  t.deepEqual(
    (
      await as(t, await owner(t), shop.id)
        .put(path, body)
        .expect(403)
    ).body,
    FORBIDDEN,
  );
  const member = await t.context.t.login(USERS.member.email);
  t.deepEqual((await as(t, member).put(path, body).expect(403)).body, FORBIDDEN);
  // Another agency's owner: the business is not theirs.
  const otherOwner = await t.context.t.login(USERS.otherOwner.email);
  t.is((await as(t, otherOwner).put(path, body).expect(404)).body.errorCode, 'AGENCY.BUSINESS_NOT_FOUND');
  t.deepEqual((await as(t, otherOwner, shop.id).put(path, body).expect(403)).body, FORBIDDEN);
});
