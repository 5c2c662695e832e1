import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { as, business, invitationCodeSentTo, invitedMember, PASSWORD, type T } from './workspace-support.ts';
import type { TestFn } from 'ava';

const test: TestFn<TestContext> = withTestApp(anyTest);

// The tests add many users under Demo Agency; its seed capacity (25) is not what they test.
test.serial.before(async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`UPDATE organizations SET user_capacity = NULL WHERE id = ${ORGANIZATIONS.demoAgency.id}`);
});

const accept = (t: T, type: 'user' | 'client', body: object) =>
  t.context.t.http().post(`/api/identity/auth/${type}/accept-invitation`).send(body);

test('a business owner invites a member: one email with a long one-time code, and the member works in the business', async (t) => {
  const bakery = await business(t, 'Bakery');
  const email = `Clerk-${uuidv7()}@Bakery.test`;
  const invited = await as(t, bakery.token).post('/api/organization/my/invitations', { email, role: 'member' }).expect(201);
  t.like(invited.body, { email: email.toLowerCase(), role: 'member' });
  const days = (Date.parse(invited.body.expiresAt) - Date.now()) / 86_400_000;
  t.true(days > 6.99 && days <= 7, `expires in ${days} days`);

  const { code, text } = await invitationCodeSentTo(t, email.toLowerCase());
  t.regex(code, /^[A-Za-z0-9_-]{22,}$/);
  t.true(text.includes('"Bakery"'), 'the mail names the organization, quoted');
  const stored = await t.context.t.db.pool.oneFirst(
    sql.unsafe`SELECT encode(code_hash, 'hex') FROM invitations WHERE id = ${invited.body.id}`,
  );
  t.false(String(stored).includes(Buffer.from(code).toString('hex')), 'the code is kept hashed');

  const accepted = await accept(t, 'user', { email, code, password: PASSWORD, name: 'Clerk' }).expect(201);
  t.deepEqual(accepted.body, { userId: accepted.body.userId, organizationId: bakery.id, email: email.toLowerCase() });
  const clerk = await t.context.t.login(email.toLowerCase(), PASSWORD);
  // A business member reads agents and answers approvals, and creates nothing.
  await as(t, clerk).get('/api/ai/agents').expect(200);
  await as(t, clerk).get('/api/ai/approvals').expect(200);
  t.is((await as(t, clerk).post('/api/ai/agents', { name: 'Nope' })).status, 403);
  t.is((await as(t, clerk).get('/api/organization/my/members')).status, 403);

  const members = await as(t, bakery.token).get('/api/organization/my/members').expect(200);
  t.deepEqual(
    members.body.members.map((member: { email: string; role: string }) => [member.email, member.role]),
    [
      [email.toLowerCase(), 'member'],
      [bakery.ownerEmail, 'owner'],
    ],
  );
  t.false(members.body.hasMore);
});

test('a code works once: used, wrong, for another address or type, superseded or expired, it is one 400', async (t) => {
  const bakery = await business(t, 'Bakery');
  const invalid = { statusCode: 400, errorCode: 'IDENTITY.INVITATION_INVALID' };
  const email = `${uuidv7()}@bakery.test`;
  await as(t, bakery.token).post('/api/organization/my/invitations', { email, role: 'member' }).expect(201);
  const { code } = await invitationCodeSentTo(t, email);
  const body = { email, code, password: PASSWORD, name: 'Clerk' };

  for (const [why, type, changed] of [
    ['a wrong code', 'user', { code: `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}` }],
    ['another address', 'user', { email: `${uuidv7()}@bakery.test` }],
    ['the client route', 'client', {}],
    ['a short code', 'user', { code: 'abc' }],
  ] as const) {
    const answer = await accept(t, type, { ...body, ...changed });
    t.like(answer.body, invalid, why);
    t.is(answer.status, 400, why);
  }
  await accept(t, 'user', body).expect(201);
  t.like((await accept(t, 'user', body)).body, invalid, 'used');

  // A newer invitation of the address supersedes the older one.
  const second = `${uuidv7()}@bakery.test`;
  await as(t, bakery.token).post('/api/organization/my/invitations', { email: second, role: 'member' }).expect(201);
  const first = (await invitationCodeSentTo(t, second)).code;
  await as(t, bakery.token).post('/api/organization/my/invitations', { email: second, role: 'owner' }).expect(201);
  const newer = (await invitationCodeSentTo(t, second)).code;
  t.like((await accept(t, 'user', { ...body, email: second, code: first })).body, invalid, 'superseded');

  // Seven days later the newer one has expired too.
  const later = t.context.t.rebuild({ clock: () => new Date(Date.now() + 7 * 86_400_000 + 1000) });
  const expired = await (
    await import('supertest')
  )
    .default(later.callback())
    .post('/api/identity/auth/user/accept-invitation')
    .send({ ...body, email: second, code: newer });
  t.like(expired.body, invalid, 'expired');
  // Within the seven days it works, and makes an owner.
  await accept(t, 'user', { ...body, email: second, code: newer }).expect(201);
  const owner = await t.context.t.login(second, PASSWORD);
  await as(t, owner).get('/api/organization/my/members').expect(200);
});

test('a client invitation makes a client of the organization, signed in on the client route', async (t) => {
  const bakery = await business(t, 'Bakery');
  const email = `${uuidv7()}@customer.test`;
  const client = await invitedMember(t, { token: bakery.token }, email, 'client');
  const me = await t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${client.token}`).expect(200);
  t.like(me.body, { type: 'client', organizationId: bakery.id, emailVerified: true });
  const members = await as(t, bakery.token).get('/api/organization/my/members').expect(200);
  t.true(members.body.members.some((member: { email: string; role: string }) => member.email === email && member.role === 'client'));
});

test('agency staff acting in a business invite its owner, who becomes an owner of the business alone', async (t) => {
  const bakery = await business(t, 'Bakery');
  const agencyOwner = await t.context.t.login(USERS.owner.email);
  const second = await invitedMember(t, { token: agencyOwner, organizationId: bakery.id }, `${uuidv7()}@bakery.test`, 'owner');
  const organization = await as(t, second.token).get('/api/organization/my').expect(200);
  t.is(organization.body.id, bakery.id);
  await as(t, second.token).post('/api/ai/agents', { name: 'Second Owner Agent' }).expect(201);
  t.is((await as(t, second.token, ORGANIZATIONS.demoAgency.id).get('/api/ai/agents')).status, 403);
  // The agency's own members are not listed in the business.
  const members = await as(t, agencyOwner, bakery.id).get('/api/organization/my/members').expect(200);
  t.false(members.body.members.some((member: { email: string }) => member.email === USERS.owner.email));
});

test("an invitation of a user needs a seat of the agency's user capacity; a client's does not", async (t) => {
  // Other Agency alone: the other tests add users to Demo Agency and its businesses.
  const agency = ORGANIZATIONS.otherAgency.id;
  const owner = await t.context.t.login(USERS.otherOwner.email);
  const db = t.context.t.db.pool;
  const used = Number(await db.oneFirst(sql.unsafe`SELECT count(*)::int FROM users WHERE organization_id = ${agency}`));
  await db.query(sql.unsafe`UPDATE organizations SET user_capacity = ${used + 1} WHERE id = ${agency}`);
  const seated = `${uuidv7()}@other.test`;
  await as(t, owner).post('/api/organization/my/invitations', { email: seated, role: 'member' }).expect(201);
  // The live invitation holds the last seat.
  const refused = await as(t, owner).post('/api/organization/my/invitations', { email: `${uuidv7()}@other.test`, role: 'member' });
  t.like(refused.body, { statusCode: 409, errorCode: 'SUBSCRIPTION.USER_LIMIT_REACHED' });
  // Inviting the same address again supersedes its invitation: the same seat. A client needs none.
  await as(t, owner).post('/api/organization/my/invitations', { email: seated, role: 'owner' }).expect(201);
  await as(t, owner)
    .post('/api/organization/my/invitations', { email: `${uuidv7()}@customer.test`, role: 'client' })
    .expect(201);
  // A seat taken meanwhile refuses the acceptance.
  await db.query(sql.unsafe`UPDATE organizations SET user_capacity = ${used} WHERE id = ${agency}`);
  const { code } = await invitationCodeSentTo(t, seated);
  const late = await accept(t, 'user', { email: seated, code, password: PASSWORD, name: 'Late' });
  t.like(late.body, { statusCode: 409, errorCode: 'SUBSCRIPTION.USER_LIMIT_REACHED' });
  await db.query(sql.unsafe`UPDATE organizations SET user_capacity = ${used + 1} WHERE id = ${agency}`);
  await accept(t, 'user', { email: seated, code, password: PASSWORD, name: 'In Time' }).expect(201);
});

test('hostile input is a clear 4xx: bad bodies, names, codes, grants and organizations', async (t) => {
  const bakery = await business(t, 'Bakery');
  const florist = await business(t, 'Florist');
  const member = await t.context.t.login(USERS.member.email);
  const invite = (body: object, token = bakery.token, organizationId?: string) =>
    as(t, token, organizationId).post('/api/organization/my/invitations', body);
  for (const body of [
    { email: 'not-an-email', role: 'member' },
    { email: 'a@b.test', role: 'admin' },
    { email: 'a@b.test' },
    { email: 'a@b.test', role: 'member', organizationId: florist.id },
    { email: `${'a'.repeat(250)}@b.test`, role: 'member' },
  ]) {
    t.is((await invite(body)).status, 400, JSON.stringify(body).slice(0, 60));
  }
  t.like((await invite({ email: USERS.owner.email, role: 'member' })).body, { statusCode: 409, errorCode: 'IDENTITY.EMAIL_TAKEN' });
  t.is((await invite({ email: 'x@b.test', role: 'member' }, member)).status, 403);
  t.deepEqual((await invite({ email: 'x@b.test', role: 'member' }, bakery.token, florist.id)).body, {
    statusCode: 403,
    message: 'Forbidden',
  });
  t.is((await invite({ email: 'x@b.test', role: 'member' }, bakery.token, ORGANIZATIONS.demoAgency.id)).status, 403);

  const email = `${uuidv7()}@bakery.test`;
  await invite({ email, role: 'member' }).expect(201);
  const { code } = await invitationCodeSentTo(t, email);
  for (const body of [
    { email, code, password: PASSWORD, name: 'Line\nBreak' },
    { email, code, password: 'short', name: 'Clerk' },
    { email, code: 'x'.repeat(5000), password: PASSWORD, name: 'Clerk' },
    { email, code, password: PASSWORD, name: 'Clerk', role: 'owner' },
    { email, code, password: PASSWORD },
  ]) {
    const answer = await accept(t, 'user', body);
    t.is(answer.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(answer.body.message, 'Validation failed');
  }
  // None of those used the code up.
  await accept(t, 'user', { email, code, password: PASSWORD, name: 'Clerk' }).expect(201);
});

test('removing a member: their next request is 401 and they cannot sign in; the last owner stays', async (t) => {
  const bakery = await business(t, 'Bakery');
  const florist = await business(t, 'Florist');
  const email = `${uuidv7()}@bakery.test`;
  const clerk = await invitedMember(t, { token: bakery.token }, email, 'member');
  await as(t, clerk.token).get('/api/ai/agents').expect(200);

  t.is(
    (await as(t, bakery.token).delete(`/api/organization/my/members/${florist.ownerId}`)).body.errorCode,
    'ORGANIZATION.MEMBER_NOT_FOUND',
  );
  t.is((await as(t, bakery.token).delete('/api/organization/my/members/not-a-uuid')).status, 400);
  t.is((await as(t, clerk.token).delete(`/api/organization/my/members/${bakery.ownerId}`)).status, 403);
  await as(t, bakery.token).delete(`/api/organization/my/members/${clerk.userId}`).expect(204);
  t.is((await as(t, clerk.token).get('/api/ai/agents')).status, 401);
  t.is((await t.context.t.http().post('/api/identity/auth/user/login').send({ email, password: PASSWORD })).status, 401);

  const lastOwner = await as(t, bakery.token).delete(`/api/organization/my/members/${bakery.ownerId}`);
  t.like(lastOwner.body, { statusCode: 409, errorCode: 'ORGANIZATION.LAST_OWNER' });
  // With a second owner, an owner may leave.
  const second = await invitedMember(t, { token: bakery.token }, `${uuidv7()}@bakery.test`, 'owner');
  await as(t, second.token).delete(`/api/organization/my/members/${bakery.ownerId}`).expect(204);
  t.is((await as(t, bakery.token).get('/api/organization/my')).status, 401);
  // The address is free again: it may be invited back.
  await as(t, second.token).post('/api/organization/my/invitations', { email, role: 'member' }).expect(201);
});

test('another agency cannot list, invite into or remove from a business', async (t) => {
  const bakery = await business(t, 'Bakery');
  const other = await t.context.t.login(USERS.otherOwner.email);
  const forbidden = { statusCode: 403, message: 'Forbidden' };
  t.deepEqual((await as(t, other, bakery.id).get('/api/organization/my/members')).body, forbidden);
  t.deepEqual(
    (await as(t, other, bakery.id).post('/api/organization/my/invitations', { email: 'x@y.test', role: 'owner' })).body,
    forbidden,
  );
  t.deepEqual((await as(t, other, bakery.id).delete(`/api/organization/my/members/${bakery.ownerId}`)).body, forbidden);
  // Acting in its own agency, the business's owner is not its member.
  t.is((await as(t, other).delete(`/api/organization/my/members/${bakery.ownerId}`)).status, 404);
});
