import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { PASSWORD, verifiedPrincipal } from './principals.ts';

const test = withTestApp(anyTest);

test('logout revokes the presented session and leaves the others working', async (t) => {
  const first = await verifiedPrincipal(t, 'user', 'leaver@logout.test');
  const second = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'leaver@logout.test', password: PASSWORD })
    .expect(200);
  const response = await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: first.refreshToken }).expect(204);
  t.is(response.text, '');
  const refused = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.refreshToken }).expect(401);
  t.deepEqual(refused.body, { statusCode: 401, message: 'Invalid refresh token' });
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: second.body.refreshToken }).expect(200);
});

test('logout with an older, rotated token of a session ends that session (its newest token stops working)', async (t) => {
  const session = await verifiedPrincipal(t, 'client', 'rotated@logout.test');
  const rotated = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: session.refreshToken }).expect(200);
  await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: session.refreshToken }).expect(204);
  const refused = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: rotated.body.refreshToken });
  t.is(refused.status, 401);
});

test('logout with all: true ends every session of the account', async (t) => {
  const first = await verifiedPrincipal(t, 'user', 'everywhere@logout.test');
  const second = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'everywhere@logout.test', password: PASSWORD })
    .expect(200);
  const other = await verifiedPrincipal(t, 'user', 'bystander@logout.test');
  await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: first.refreshToken, all: true }).expect(204);
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: first.refreshToken }).expect(401);
  const secondRefresh = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: second.body.refreshToken });
  t.is(secondRefresh.status, 401);
  const bystander = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: other.refreshToken });
  t.is(bystander.status, 200, 'another account keeps its sessions');
});

test('logout answers 204 for an unknown or already revoked token', async (t) => {
  const unknown = await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: 'not-a-token-we-issued' });
  t.is(unknown.status, 204);
  const session = await verifiedPrincipal(t, 'user', 'twice@logout.test');
  await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: session.refreshToken }).expect(204);
  const twice = await t.context.t.http().post('/api/identity/auth/logout').send({ refreshToken: session.refreshToken, all: true });
  t.is(twice.status, 204);
});

test('logout refuses a body without a refresh token with the validation envelope', async (t) => {
  const response = await t.context.t.http().post('/api/identity/auth/logout').send({ all: true }).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['refreshToken'], message: 'Required' }]);
});
