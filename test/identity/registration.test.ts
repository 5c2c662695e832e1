import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { codeSentTo, PASSWORD, register } from './principals.ts';

const test = withTestApp(anyTest);

test('check-email says a demo user email is taken and a new one is available, and nothing more', async (t) => {
  const taken = await t.context.t.http().post('/api/identity/auth/user/check-email').send({ email: 'Owner@Demo.test' }).expect(200);
  t.deepEqual(taken.body, { available: false });
  const free = await t.context.t.http().post('/api/identity/auth/user/check-email').send({ email: 'nobody@demo.test' }).expect(200);
  t.deepEqual(free.body, { available: true });
});

test('check-email rejects a malformed email with a 400 at its path', async (t) => {
  const response = await t.context.t.http().post('/api/identity/auth/user/check-email').send({ email: 'not-an-email' }).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['email'], message: 'must be an email address' }]);
});

test('user registration creates an unverified user owning a new agency and emails a code', async (t) => {
  const response = await register(t, 'user', 'Founder@New.test').expect(201);
  t.deepEqual(Object.keys(response.body).sort(), ['email', 'organizationId', 'userId']);
  t.is(response.body.email, 'founder@new.test');
  const row = await t.context.t.db.pool.one(sql.type(
    z.object({ type: z.string(), orgType: z.string(), verified: z.boolean(), roles: z.number() }),
  )`
    SELECT u.type, o.type AS "orgType", u.email_verified_at IS NOT NULL AS verified,
           (SELECT count(*)::int FROM user_roles r WHERE r.user_id = u.id) AS roles
    FROM users u JOIN organizations o ON o.id = u.organization_id WHERE u.id = ${response.body.userId}`);
  t.deepEqual(row, { type: 'user', orgType: 'AGENCY', verified: false, roles: 1 });
  t.regex(await codeSentTo(t, 'founder@new.test'), /^\d{6}$/);
});

test('an unverified user cannot sign in until the email is verified, then can', async (t) => {
  await register(t, 'user', 'pending@new.test').expect(201);
  const wrong = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'pending@new.test', password: 'wrong password' })
    .expect(401);
  t.deepEqual(wrong.body, { statusCode: 401, message: 'Invalid email or password' });
  const blocked = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'pending@new.test', password: PASSWORD })
    .expect(403);
  t.is(blocked.body.errorCode, 'IDENTITY.EMAIL_NOT_VERIFIED');
  const code = await codeSentTo(t, 'pending@new.test');
  const verified = await t.context.t
    .http()
    .post('/api/identity/auth/user/verify-email')
    .send({ email: 'pending@new.test', code })
    .expect(200);
  t.deepEqual(verified.body, { email: 'pending@new.test', emailVerified: true });
  const login = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'pending@new.test', password: PASSWORD })
    .expect(200);
  t.is(login.body.tokenType, 'Bearer');
});

test('registering a taken email answers 409 IDENTITY.EMAIL_TAKEN and creates no organization', async (t) => {
  const count = () =>
    t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM organizations WHERE name = 'Taken Agency'`);
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/register')
    .send({ email: USERS.owner.email, password: PASSWORD, name: 'Someone', organizationName: 'Taken Agency' })
    .expect(409);
  t.is(response.body.errorCode, 'IDENTITY.EMAIL_TAKEN');
  t.deepEqual(Object.keys(response.body.message).sort(), ['en', 'es']);
  t.is(await count(), 0);
});

test('registration validates every field', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/register')
    .send({ email: 'x@new.test', password: 'short', organizationName: '' })
    .expect(400);
  t.deepEqual(response.body.errors.map((e: { path: string[] }) => e.path.join('.')).sort(), ['name', 'organizationName', 'password']);
});

test('a client registers as a customer of an existing agency; the email is free again for a user', async (t) => {
  const response = await register(t, 'client', USERS.owner.email).expect(201);
  t.is(response.body.organizationId, ORGANIZATIONS.demoAgency.id);
  t.is(response.body.email, USERS.owner.email);
});

test('a client registration naming an unknown or platform organization answers 404 ORGANIZATION.NOT_FOUND', async (t) => {
  for (const organizationId of ['01900000-0000-7000-8000-00000000ffff', ORGANIZATIONS.platform.id]) {
    const response = await t.context.t
      .http()
      .post('/api/identity/auth/client/register')
      .send({ email: 'c@new.test', password: PASSWORD, name: 'C', organizationId })
      .expect(404);
    t.is(response.body.errorCode, 'ORGANIZATION.NOT_FOUND');
  }
});

test('a client registration with a non-UUID organization is a 400 at organizationId', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/client/register')
    .send({ email: 'c2@new.test', password: PASSWORD, name: 'C', organizationId: 'abc' })
    .expect(400);
  t.deepEqual(response.body.errors, [{ path: ['organizationId'], message: 'must be a UUID v7' }]);
});

test('the demo accounts of docs/interface.md §3 sign in', async (t) => {
  for (const user of Object.values(USERS)) {
    await t.context.t.http().post('/api/identity/auth/user/login').send({ email: user.email, password: 'demo-password-1' }).expect(200);
  }
  t.is(Object.values(USERS).length, 5);
});
