import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { as, business, invitationCodeSentTo, PASSWORD, type T } from './workspace-support.ts';
import type { TestFn } from 'ava';

const test: TestFn<TestContext> = withTestApp(anyTest);

test.serial.before(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE organizations SET user_capacity = NULL WHERE id = ${ORGANIZATIONS.demoAgency.id}`);
});

const FORBIDDEN = { statusCode: 403, message: 'Forbidden' };

async function activePlanId(t: T, token: string): Promise<string> {
  const plans = await as(t, token).get('/api/plans').expect(200);
  return (plans.body as Array<{ id: string; isActive: boolean }>).find((plan) => plan.isActive)!.id;
}

test('an agency makes a client workspace, invites its owner, and lists it with its plan, people, agents and month', async (t) => {
  const owner = await t.context.t.login(USERS.owner.email);
  // $10 a month and 20 % on usage: the month so far is billed as the bill bills it.
  const planId = (
    await as(t, owner)
      .post('/api/plans', { name: 'Cafe Plan', isPublic: false, isActive: true, priceUsdPerMonth: 10, usageMarkupPercent: 20 })
      .expect(201)
  ).body.id as string;
  const email = `${uuidv7()}@cafe.test`;
  const made = await as(t, owner)
    .post('/api/agency/businesses', { name: 'Corner Cafe', planId, owner: { email, name: 'Cafe Owner' } })
    .expect(201);
  t.like(made.body, {
    // Made today, it is billed its plan's price for the month already.
    business: {
      name: 'Corner Cafe',
      plan: { id: planId, name: 'Cafe Plan' },
      users: 0,
      agents: 0,
      monthToDate: { turns: 0, usageCostUsd: 0, billedUsd: 10 },
    },
    invitation: { email },
  });
  const cafe = made.body.business.id as string;
  const { code, text } = await invitationCodeSentTo(t, email);
  t.true(text.includes('"Cafe Owner"') && text.includes('"Corner Cafe"'));
  await t.context.t
    .http()
    .post('/api/identity/auth/user/accept-invitation')
    .send({ email, code, password: PASSWORD, name: 'Cafe Owner' })
    .expect(201);
  const cafeOwner = await t.context.t.login(email, PASSWORD);
  const agent = await as(t, cafeOwner).post('/api/ai/agents', { name: 'Cafe Helper' }).expect(201);

  // This month: one turn and usage on the platform key (billed) and on the business's own key (not).
  const db = t.context.t.db.pool;
  const now = new Date();
  await db.query(sql.unsafe`
    INSERT INTO usage_events (id, organization_id, model_id, action_type, source, input_tokens, output_tokens, cache_read_tokens, cost_usd, created_at)
    VALUES (${uuidv7()}, ${cafe}, 'm', 'user_interaction', 'system', 1, 1, 0, 0.123456, ${now.toISOString()}),
           (${uuidv7()}, ${cafe}, 'm', 'user_interaction', 'system', 1, 1, 0, 0.001, ${now.toISOString()}),
           (${uuidv7()}, ${cafe}, 'm', 'user_interaction', 'byok', 1, 1, 0, 5, ${now.toISOString()})`);
  await db.query(sql.unsafe`
    INSERT INTO chat_turns (id, organization_id, agent_id, user_id, client_conversation_id, started_at, lease_until, ended_at, outcome)
    SELECT ${uuidv7()}, ${cafe}, ${agent.body.id}, id, 'c1', now(), now(), now(), 'finished' FROM users WHERE email = ${email}`);

  const list = await as(t, owner).get('/api/agency/businesses').expect(200);
  const row = (list.body.businesses as Array<{ id: string }>).find((entry) => entry.id === cafe);
  t.deepEqual(row, {
    id: cafe,
    name: 'Corner Cafe',
    plan: { id: planId, name: 'Cafe Plan' },
    users: 1,
    agents: 1,
    createdAt: made.body.business.createdAt,
    // 10.00 + round(0.124456 x 1.2 = 0.1493472, 2) = 10.15; the business's own key's usage is not billed.
    monthToDate: { turns: 1, usageCostUsd: 0.124456, billedUsd: 10.15 },
  });
});

test('the clients list pages newest first, and holds only the acting agency’s businesses', async (t) => {
  const [first, second] = [await business(t, 'Page One'), await business(t, 'Page Two')];
  const owner = await t.context.t.login(USERS.owner.email);
  const page = await as(t, owner).get('/api/agency/businesses?limit=1').expect(200);
  t.true(page.body.hasMore);
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const next = await as(t, owner)
      .get(`/api/agency/businesses?limit=2${before ? `&before=${before}` : ''}`)
      .expect(200);
    ids.push(...next.body.businesses.map((entry: { id: string }) => entry.id));
    if (!next.body.hasMore) break;
    before = ids.at(-1);
  }
  t.true(ids.indexOf(second.id) < ids.indexOf(first.id));
  t.is(new Set(ids).size, ids.length);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const theirs = await as(t, other).get('/api/agency/businesses').expect(200);
  t.false(theirs.body.businesses.some((entry: { id: string }) => ids.includes(entry.id)));
});

test('only an agency has clients: in a business 409, another agency naming the business 403, bad input 400', async (t) => {
  const bakery = await business(t, 'Bakery');
  const owner = await t.context.t.login(USERS.owner.email);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const planId = await activePlanId(t, owner);
  const body = { name: 'X', planId, owner: { email: `${uuidv7()}@x.test`, name: 'X' } };
  t.like((await as(t, bakery.token).get('/api/agency/businesses')).body, { statusCode: 409, errorCode: 'ORGANIZATION.NOT_AN_AGENCY' });
  t.like((await as(t, owner, bakery.id).post('/api/agency/businesses', body)).body, { errorCode: 'ORGANIZATION.NOT_AN_AGENCY' });
  t.deepEqual((await as(t, other, bakery.id).get('/api/agency/businesses')).body, FORBIDDEN);
  t.deepEqual((await as(t, bakery.token, ORGANIZATIONS.demoAgency.id).get('/api/agency/businesses')).body, FORBIDDEN);
  const member = await t.context.t.login(USERS.member.email);
  t.is((await as(t, member).post('/api/agency/businesses', body)).status, 403);
  const otherPlan = await activePlanId(t, other).catch(() => uuidv7());
  t.like((await as(t, owner).post('/api/agency/businesses', { ...body, planId: otherPlan })).body, {
    errorCode: 'PLANS.PLAN_NOT_AVAILABLE',
  });
  t.like((await as(t, owner).post('/api/agency/businesses', { ...body, owner: { email: USERS.otherOwner.email, name: 'Y' } })).body, {
    errorCode: 'IDENTITY.EMAIL_TAKEN',
  });
  for (const bad of [
    { ...body, name: '' },
    { ...body, planId: 'plan' },
    { ...body, owner: { email: 'x@y.test' } },
    { ...body, owner: { ...body.owner, name: 'a\u202eb' } },
    { ...body, parentId: ORGANIZATIONS.otherAgency.id },
  ]) {
    t.is((await as(t, owner).post('/api/agency/businesses', bad)).status, 400, JSON.stringify(bad));
  }
  t.is((await as(t, owner).get('/api/agency/businesses?limit=0')).status, 400);
  t.is((await as(t, owner).get('/api/agency/businesses?before=x')).status, 400);
  const made = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM organizations WHERE name IN ('X', '')`);
  t.is(made, 0, 'a refused workspace is not made');
});

test("an agent copied into a business takes its definition and tool permissions; the business sees it, nobody else's copy goes through", async (t) => {
  const bakery = await business(t, 'Bakery');
  const owner = await t.context.t.login(USERS.owner.email);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const source = await as(t, owner)
    .post('/api/ai/agents', { name: 'Template', description: 'A model agent', instructions: 'Be kind.', temperature: 0.3 })
    .expect(201);
  const tools = [{ toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' }];
  await as(t, owner).put(`/api/ai/agents/${source.body.id}/tools`, { tools }).expect(200);

  const copy = await as(t, owner).post(`/api/ai/agents/${source.body.id}/copies`, { organizationId: bakery.id }).expect(201);
  t.not(copy.body.id, source.body.id);
  t.like(copy.body, { name: 'Template', description: 'A model agent', instructions: 'Be kind.', temperature: 0.3 });
  const seen = await as(t, bakery.token).get(`/api/ai/agents/${copy.body.id}/tools`).expect(200);
  t.deepEqual(seen.body.tools, tools);
  t.is((await as(t, bakery.token).get(`/api/ai/agents/${source.body.id}`)).status, 404, 'the source stays the agency’s');

  const refused = [
    ['another agency', owner, ORGANIZATIONS.otherAgency.id],
    ['the platform', owner, ORGANIZATIONS.platform.id],
    ['nothing', owner, uuidv7()],
  ] as const;
  for (const [why, token, organizationId] of refused) {
    const answer = await as(t, token).post(`/api/ai/agents/${source.body.id}/copies`, { organizationId });
    t.like(answer.body, { statusCode: 404, errorCode: 'ORGANIZATION.NOT_FOUND' }, why);
  }
  // A business copies its own agents only into itself, never up into its agency.
  const up = await as(t, bakery.token).post(`/api/ai/agents/${copy.body.id}/copies`, { organizationId: ORGANIZATIONS.demoAgency.id });
  t.is(up.status, 404);
  await as(t, bakery.token).post(`/api/ai/agents/${copy.body.id}/copies`, { organizationId: bakery.id }).expect(201);
  // Another agency cannot reach the source at all.
  t.is((await as(t, other).post(`/api/ai/agents/${source.body.id}/copies`, { organizationId: ORGANIZATIONS.otherAgency.id })).status, 404);
  const gated = await as(t, owner).post(`/api/ai/agents/${source.body.id}/copies`, {
    organizationId: bakery.id,
    evaluationRunId: uuidv7(),
  });
  t.like(gated.body, { statusCode: 409, errorCode: 'AI.EVALUATION_NOT_PASSED' });
  t.is((await as(t, owner).post(`/api/ai/agents/${source.body.id}/copies`, { organizationId: 'bakery' })).status, 400);
});
