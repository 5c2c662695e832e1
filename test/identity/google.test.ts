import anyTest from 'ava';
import request from 'supertest';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { FakeGoogle, type FakeProfile } from './fake-google.ts';
import { PASSWORD, register, type T } from './principals.ts';

const test = withTestApp(anyTest);
const google = new FakeGoogle();

test.before(async () => google.start());
test.after.always(async () => google.stop());

const withGoogle = (t: T) => request(t.context.t.rebuild({ config: testConfig({ google: google.config }) }).callback());

const profile = (email: string, extra: Partial<FakeProfile> = {}): FakeProfile => ({
  sub: `google-${email}`,
  email,
  email_verified: true,
  name: 'Goo Gle',
  ...extra,
});

async function signIn(t: T, type: 'user' | 'client', who: FakeProfile, status: number, query = '') {
  const http = withGoogle(t);
  const started = await http.get(`/api/identity/auth/${type}/google/authorize${query}`).expect(200);
  const { code, state } = google.grant(started.body.authorizationUrl, who);
  return http.get(`/api/identity/auth/${type}/google/callback`).query({ code, state, scope: 'openid email', authuser: '0' }).expect(status);
}

const me = (t: T, token: string) => t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${token}`).expect(200);

test('without Google configuration the Google routes answer 404', async (t) => {
  const response = await t.context.t.http().get('/api/identity/auth/user/google/callback?code=a&state=b').expect(404);
  t.is(response.body.statusCode, 404);
  await t.context.t.http().get('/api/identity/auth/client/google/authorize').expect(404);
});

test('the authorization URL asks for a code with PKCE S256 and the configured redirect URI', async (t) => {
  const response = await withGoogle(t).get('/api/identity/auth/user/google/authorize').expect(200);
  const url = new URL(response.body.authorizationUrl);
  t.is(`${url.origin}${url.pathname}`, google.config.authorizationUrl);
  t.like(Object.fromEntries(url.searchParams), {
    response_type: 'code',
    client_id: google.clientId,
    code_challenge_method: 'S256',
    redirect_uri: 'http://localhost:3000/api/identity/auth/user/google/callback',
    state: response.body.state,
  });
  t.false(url.searchParams.has('client_secret'));
});

test('a first Google sign-in creates a verified user owning a new agency', async (t) => {
  const response = await signIn(t, 'user', profile('new@gmail.test'), 200);
  t.is(response.body.tokenType, 'Bearer');
  const profileBody = (await me(t, response.body.accessToken)).body;
  t.like(profileBody, { email: 'new@gmail.test', type: 'user', emailVerified: true });
  const again = await signIn(t, 'user', profile('new@gmail.test'), 200);
  t.is((await me(t, again.body.accessToken)).body.id, profileBody.id);
});

test('a Google account with the email of an existing user signs in as that user', async (t) => {
  const response = await signIn(t, 'user', profile(USERS.member.email), 200);
  t.is((await me(t, response.body.accessToken)).body.id, USERS.member.id);
});

test('linking an unverified password account drops the unproven password', async (t) => {
  await register(t, 'user', 'squatted@gmail.test').expect(201);
  const linked = await signIn(t, 'user', profile('squatted@gmail.test'), 200);
  t.true((await me(t, linked.body.accessToken)).body.emailVerified);
  const login = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'squatted@gmail.test', password: PASSWORD })
    .expect(401);
  t.deepEqual(login.body, { statusCode: 401, message: 'Invalid email or password' });
});

test('a client signs in with Google into the organization named at the start', async (t) => {
  const missing = await withGoogle(t).get('/api/identity/auth/client/google/authorize').expect(400);
  t.deepEqual(missing.body.errors, [{ path: ['query', 'organizationId'], message: 'Required' }]);
  const response = await signIn(t, 'client', profile('buyer@gmail.test'), 200, `?organizationId=${ORGANIZATIONS.demoAgency.id}`);
  t.like((await me(t, response.body.accessToken)).body, { type: 'client', organizationId: ORGANIZATIONS.demoAgency.id });
});

test('a Google sign-in as a new client of an organization that takes no client registrations is 403 and creates nobody', async (t) => {
  const refused = await signIn(t, 'client', profile('stranger@gmail.test'), 403, `?organizationId=${ORGANIZATIONS.otherAgency.id}`);
  t.is(refused.body.errorCode, 'IDENTITY.CLIENT_REGISTRATION_DISABLED');
  const login = await t.context.t.http().post('/api/identity/auth/client/login').send({ email: 'stranger@gmail.test', password: PASSWORD });
  t.is(login.status, 401);
});

test('an email Google has not verified is refused with 403', async (t) => {
  const response = await signIn(t, 'user', profile('unverified@gmail.test', { email_verified: false }), 403);
  t.is(response.body.errorCode, 'IDENTITY.GOOGLE_EMAIL_NOT_VERIFIED');
});

test('a forged, foreign-type or missing state is refused with 401 before any exchange', async (t) => {
  const http = withGoogle(t);
  const forged = await http.get('/api/identity/auth/user/google/callback').query({ code: 'x', state: 'abc.def' }).expect(401);
  t.is(forged.body.errorCode, 'IDENTITY.GOOGLE_STATE_INVALID');
  const started = await http.get('/api/identity/auth/user/google/authorize').expect(200);
  const { code, state } = google.grant(started.body.authorizationUrl, profile('typed@gmail.test'));
  const wrongType = await http.get('/api/identity/auth/client/google/callback').query({ code, state }).expect(401);
  t.is(wrongType.body.errorCode, 'IDENTITY.GOOGLE_STATE_INVALID');
  const noState = await http.get('/api/identity/auth/user/google/callback').query({ code }).expect(400);
  t.deepEqual(noState.body.errors, [{ path: ['query', 'state'], message: 'Required' }]);
});

test('a code the provider refuses, or a denied consent, is 401 IDENTITY.GOOGLE_SIGN_IN_FAILED', async (t) => {
  const http = withGoogle(t);
  const started = await http.get('/api/identity/auth/user/google/authorize').expect(200);
  const refused = await http
    .get('/api/identity/auth/user/google/callback')
    .query({ code: 'never-issued', state: started.body.state })
    .expect(401);
  t.is(refused.body.errorCode, 'IDENTITY.GOOGLE_SIGN_IN_FAILED');
  const denied = await http
    .get('/api/identity/auth/user/google/callback')
    .query({ error: 'access_denied', state: started.body.state })
    .expect(401);
  t.is(denied.body.errorCode, 'IDENTITY.GOOGLE_SIGN_IN_FAILED');
});
