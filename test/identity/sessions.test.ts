import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const login = (t: ExecutionContext<TestContext>, email: string, password: string) =>
  t.context.t.http().post('/api/identity/auth/user/login').send({ email, password });

test('login answers a token pair for the right password', async (t) => {
  const response = await login(t, USERS.owner.email, 'demo-password-1').expect(200);
  t.deepEqual(Object.keys(response.body).sort(), ['accessToken', 'expiresIn', 'refreshToken', 'tokenType']);
  t.is(response.body.tokenType, 'Bearer');
  t.is(response.body.expiresIn, 900);
});

test('a wrong password and an unknown email get the same 401', async (t) => {
  const wrongPassword = await login(t, USERS.owner.email, 'not-the-password').expect(401);
  const unknownEmail = await login(t, 'nobody@demo.test', 'demo-password-1').expect(401);
  t.deepEqual(wrongPassword.body, unknownEmail.body);
  t.deepEqual(wrongPassword.body, { statusCode: 401, message: 'Invalid email or password' });
});

test('a user account cannot sign in on the client route', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/client/login')
    .send({ email: USERS.owner.email, password: 'demo-password-1' })
    .expect(401);
  t.deepEqual(response.body, { statusCode: 401, message: 'Invalid email or password' });
});

test('refresh rotates the token and the new pair works', async (t) => {
  const first = await login(t, USERS.member.email, 'demo-password-1').expect(200);
  const rotated = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.body.refreshToken }).expect(200);
  t.not(rotated.body.refreshToken, first.body.refreshToken);
  await t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${rotated.body.accessToken}`).expect(200);
  const again = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: rotated.body.refreshToken });
  t.is(again.status, 200);
});

test('reusing a rotated refresh token revokes its whole family', async (t) => {
  const first = await login(t, USERS.member.email, 'demo-password-1').expect(200);
  const second = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.body.refreshToken }).expect(200);
  // The first token is presented again: a sign that it leaked.
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.body.refreshToken }).expect(401);
  // The legitimate latest token of the family is revoked too.
  const latest = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: second.body.refreshToken });
  t.is(latest.status, 401);
  t.deepEqual(latest.body, { statusCode: 401, message: 'Invalid refresh token' });
});

test('concurrent uses of one refresh token let exactly one through', async (t) => {
  const first = await login(t, USERS.member.email, 'demo-password-1').expect(200);
  const results = await Promise.all(
    Array.from({ length: 5 }, () => t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.body.refreshToken })),
  );
  t.is(results.filter((r) => r.status === 200).length, 1);
  t.is(results.filter((r) => r.status === 401).length, 4);
});

test('refresh tokens are stored only as hashes', async (t) => {
  const response = await login(t, USERS.member.email, 'demo-password-1').expect(200);
  const token: string = response.body.refreshToken;
  const found = await t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM refresh_tokens WHERE encode(token_hash, 'escape') LIKE ${`%${token}%`}`);
  t.is(found, 0);
});

test('an unknown refresh token is a 401', async (t) => {
  const response = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: 'made-up' }).expect(401);
  t.deepEqual(response.body, { statusCode: 401, message: 'Invalid refresh token' });
});
