import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { PASSWORD, verifiedPrincipal } from './principals.ts';

const test = withTestApp(anyTest);

const NEW_PASSWORD = 'a brand new passphrase';

test('changing the password answers 204, revokes refresh tokens and the new password signs in', async (t) => {
  const session = await verifiedPrincipal(t, 'user', 'changer@pw.test');
  await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .set('authorization', `Bearer ${session.accessToken}`)
    .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
    .expect(204);
  const refresh = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: session.refreshToken }).expect(401);
  t.deepEqual(refresh.body, { statusCode: 401, message: 'Invalid refresh token' });
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'changer@pw.test', password: PASSWORD }).expect(401);
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'changer@pw.test', password: NEW_PASSWORD }).expect(200);
});

test('a client changes its password on the client route', async (t) => {
  const session = await verifiedPrincipal(t, 'client', 'client@pw.test');
  await t.context.t
    .http()
    .post('/api/identity/auth/client/change-password')
    .set('authorization', `Bearer ${session.accessToken}`)
    .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
    .expect(204);
  const login = await t.context.t
    .http()
    .post('/api/identity/auth/client/login')
    .send({ email: 'client@pw.test', password: NEW_PASSWORD })
    .expect(200);
  t.is(login.body.tokenType, 'Bearer');
});

test('a wrong current password is 403 IDENTITY.WRONG_PASSWORD and changes nothing', async (t) => {
  const session = await verifiedPrincipal(t, 'user', 'wrong@pw.test');
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .set('authorization', `Bearer ${session.accessToken}`)
    .send({ currentPassword: 'not my password', newPassword: NEW_PASSWORD })
    .expect(403);
  t.is(response.body.errorCode, 'IDENTITY.WRONG_PASSWORD');
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: session.refreshToken }).expect(200);
});

test('a token of the other principal type is refused with 403 on either route', async (t) => {
  const client = await verifiedPrincipal(t, 'client', 'typed@pw.test');
  const user = await t.context.t.login('member@demo.test');
  const onUser = await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .set('authorization', `Bearer ${client.accessToken}`)
    .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
    .expect(403);
  t.deepEqual(onUser.body, { statusCode: 403, message: 'Forbidden' });
  await t.context.t
    .http()
    .post('/api/identity/auth/client/change-password')
    .set('authorization', `Bearer ${user}`)
    .send({ currentPassword: 'demo-password-1', newPassword: NEW_PASSWORD })
    .expect(403);
});

test('change-password needs a token and a valid body', async (t) => {
  await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .send({ currentPassword: 'x', newPassword: NEW_PASSWORD })
    .expect(401);
  const token = await t.context.t.login('member@demo.test');
  const short = await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .set('authorization', `Bearer ${token}`)
    .send({ currentPassword: 'demo-password-1', newPassword: 'short' })
    .expect(400);
  t.deepEqual(
    short.body.errors.map((e: { path: string[] }) => e.path),
    [['newPassword']],
  );
  const same = await t.context.t
    .http()
    .post('/api/identity/auth/user/change-password')
    .set('authorization', `Bearer ${token}`)
    .send({ currentPassword: 'demo-password-1', newPassword: 'demo-password-1' })
    .expect(400);
  t.deepEqual(same.body.errors, [{ path: ['newPassword'], message: 'must differ from the current password' }]);
});
