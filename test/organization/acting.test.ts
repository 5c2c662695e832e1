import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import type { ExecutionContext } from 'ava';

const test = withTestApp(anyTest);
type T = ExecutionContext<TestContext>;

const FORBIDDEN = { statusCode: 403, message: 'Forbidden' };

/** A business registered under Demo Agency through the gates, its owner's email verified; answers its id and the owner's token. */
async function business(t: T, name: string): Promise<{ id: string; token: string; ownerId: string }> {
  const email = `${uuidv7()}@business.test`;
  const registered = await t.context.t
    .http()
    .post('/api/identity/auth/user/register/business')
    .send({ email, password: 'demo-password-1', name: `${name} Owner`, businessName: name, agencyId: ORGANIZATIONS.demoAgency.id })
    .expect(201);
  await t.context.t.db.pool.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${registered.body.userId}`);
  return { id: registered.body.organizationId, ownerId: registered.body.userId, token: await t.context.t.login(email) };
}

const as = (t: T, token: string, organizationId?: string) => {
  const http = t.context.t.http();
  const withHeaders = <R extends { set(name: string, value: string): R }>(request: R) => {
    const authed = request.set('authorization', `Bearer ${token}`);
    return organizationId === undefined ? authed : authed.set('x-org-id', organizationId);
  };
  return {
    get: (path: string) => withHeaders(http.get(path)),
    post: (path: string, body: object) => withHeaders(http.post(path)).send(body),
  };
};

test('agency staff act in their business with x-org-id: what they create there belongs to the business alone', async (t) => {
  const [bakery, florist] = [await business(t, 'Bakery'), await business(t, 'Florist')];
  const owner = await t.context.t.login(USERS.owner.email);
  const created = await as(t, owner, bakery.id).post('/api/ai/agents', { name: 'Bakery Helper' }).expect(201);

  const inBakery = await as(t, owner, bakery.id).get('/api/ai/agents').expect(200);
  t.deepEqual(
    inBakery.body.agents.map((agent: { name: string }) => agent.name),
    ['Bakery Helper'],
  );
  const byBakeryOwner = await as(t, bakery.token).get('/api/ai/agents').expect(200);
  t.deepEqual(
    byBakeryOwner.body.agents.map((agent: { id: string }) => agent.id),
    [created.body.id],
  );
  const inAgency = await as(t, owner).get('/api/ai/agents').expect(200);
  t.false(inAgency.body.agents.some((agent: { id: string }) => agent.id === created.body.id));
  const byFlorist = await as(t, florist.token).get(`/api/ai/agents/${created.body.id}`).expect(404);
  t.is(byFlorist.body.errorCode, 'AI.AGENT_NOT_FOUND');
  // The agency's own agents are invisible to its businesses.
  const agencyAgent = inAgency.body.agents[0] as { id: string };
  t.is((await as(t, bakery.token).get(`/api/ai/agents/${agencyAgent.id}`)).status, 404);
});

test('a business owner from register/business runs their own workspace', async (t) => {
  const bakery = await business(t, 'Bakery');
  const organization = await as(t, bakery.token).get('/api/organization/my').expect(200);
  t.like(organization.body, { id: bakery.id, type: 'BUSINESS', parentId: ORGANIZATIONS.demoAgency.id, name: 'Bakery' });
  await as(t, bakery.token).post('/api/ai/agents', { name: 'Own Agent' }).expect(201);
  await as(t, bakery.token).get('/api/ai/approvals').expect(200);
});

test('naming an organization one may not act in is the plain 403, before the body or the resource is looked at', async (t) => {
  const [bakery, florist] = [await business(t, 'Bakery'), await business(t, 'Florist')];
  const owner = await t.context.t.login(USERS.owner.email);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const member = await t.context.t.login(USERS.member.email);
  const refused: Array<[string, string, string]> = [
    ['another agency naming the business', other, bakery.id],
    ['a business naming its agency', bakery.token, ORGANIZATIONS.demoAgency.id],
    ['a business naming a sibling business', bakery.token, florist.id],
    ['an agency naming another agency', owner, ORGANIZATIONS.otherAgency.id],
    ['an agency naming the platform', owner, ORGANIZATIONS.platform.id],
    ['a header that is not an id', owner, 'demo-agency'],
    ['an organization that does not exist', owner, uuidv7()],
  ];
  for (const [who, token, organizationId] of refused) {
    for (const path of ['/api/ai/agents', '/api/organization/my', '/api/ai/approvals', `/api/ai/agents/${uuidv7()}`]) {
      const answer = await as(t, token, organizationId).get(path);
      t.deepEqual([answer.status, answer.body], [403, FORBIDDEN], `${who}: ${path}`);
    }
    const created = await as(t, token, organizationId).post('/api/ai/agents', { name: 'Nope', unknownField: true });
    t.deepEqual([created.status, created.body], [403, FORBIDDEN], `${who}: POST`);
  }
  // A member without grants stays without them in the agency's business.
  t.is((await as(t, member, bakery.id).get('/api/ai/agents')).status, 403);
  const rows = await t.context.t.db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM agents WHERE name = 'Nope'`);
  t.is(rows, 0);
});

test('analytics read the acting organization: the agency may read its business, nobody else may', async (t) => {
  const bakery = await business(t, 'Bakery');
  const owner = await t.context.t.login(USERS.owner.email);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const window = '?from=2026-01-01T00:00:00.000Z&to=2026-01-02T00:00:00.000Z';
  const read = await as(t, owner, bakery.id).get(`/api/ai/org-usage/heatmap${window}`).expect(200);
  t.deepEqual(read.body.cells, []);
  t.deepEqual((await as(t, other, bakery.id).get(`/api/ai/org-usage/heatmap${window}`)).body, FORBIDDEN);
  t.is((await as(t, bakery.token, ORGANIZATIONS.demoAgency.id).get(`/api/ai/org-usage/heatmap${window}`)).status, 403);
});

test("a user removed from their organization is refused with 401 on their token's next request", async (t) => {
  const bakery = await business(t, 'Bakery');
  await as(t, bakery.token).get('/api/organization/my').expect(200);
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM users WHERE id = ${bakery.ownerId}`);
  const answer = await as(t, bakery.token).get('/api/organization/my');
  t.is(answer.status, 401);
});
