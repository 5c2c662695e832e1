import anyTest from 'ava';
import request from 'supertest';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { FakeGoogle, type FakeProfile } from './fake-google.ts';
import type { T } from './principals.ts';

const test = withTestApp(anyTest);
const google = new FakeGoogle();
test.before(async () => google.start());
test.after.always(async () => google.stop());

const FRONTEND = 'https://app.example.com/signed-in';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const appAt = (t: T, offsetMs = 0) =>
  request(
    t.context.t
      .rebuild({ config: testConfig({ google: google.config, frontendUrl: FRONTEND }), clock: () => new Date(Date.now() + offsetMs) })
      .callback(),
  );

const who = (email: string): FakeProfile => ({ sub: `google-${email}`, email, email_verified: true, name: 'Browser Person' });

/** Starts a sign-in as the front-end does, grants it at the fake Google, and lands the browser on the callback. */
async function landBrowser(t: T, email: string, landAfterMs = 0) {
  const started = await appAt(t).get('/api/identity/auth/user/google/authorize').expect(200);
  const { code, state } = google.grant(started.body.authorizationUrl, who(email));
  const landed = await appAt(t, landAfterMs)
    .get('/api/identity/auth/user/google/callback')
    .query({ code, state, scope: 'openid email' })
    .set('accept', BROWSER_ACCEPT);
  const location = new URL(landed.headers.location ?? 'about:blank');
  return {
    state,
    code,
    status: landed.status,
    at: `${location.origin}${location.pathname}`,
    params: Object.fromEntries(location.searchParams),
  };
}

test('a browser landing redirects to the front-end with a one-time hand-off that the starting front-end trades for tokens', async (t) => {
  const landed = await landBrowser(t, 'browser-1@gmail.test');
  t.is(landed.status, 303);
  t.is(landed.at, FRONTEND);
  t.like(landed.params, { googleSignIn: 'success', type: 'user' });
  t.regex(landed.params.handoff ?? '', /^[A-Za-z0-9_-]{43}$/);
  t.false(JSON.stringify(landed.params).includes('accessToken'), 'no token travels in the URL');

  const tokens = await appAt(t)
    .post('/api/identity/auth/google/handoff')
    .send({ code: landed.params.handoff, state: landed.state })
    .expect(200);
  t.is(tokens.body.tokenType, 'Bearer');
  const me = await t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${tokens.body.accessToken}`).expect(200);
  t.like(me.body, { email: 'browser-1@gmail.test', type: 'user', emailVerified: true });

  const again = await appAt(t)
    .post('/api/identity/auth/google/handoff')
    .send({ code: landed.params.handoff, state: landed.state })
    .expect(401);
  t.is(again.body.errorCode, 'IDENTITY.GOOGLE_HANDOFF_INVALID');
});

test('a hand-off presented with another state is refused and stays usable by the browser that started the sign-in', async (t) => {
  const victim = await landBrowser(t, 'browser-2@gmail.test');
  const other = await appAt(t).get('/api/identity/auth/user/google/authorize').expect(200);
  const refused = await appAt(t)
    .post('/api/identity/auth/google/handoff')
    .send({ code: victim.params.handoff, state: other.body.state })
    .expect(401);
  t.is(refused.body.errorCode, 'IDENTITY.GOOGLE_HANDOFF_INVALID');
  const ok = await appAt(t).post('/api/identity/auth/google/handoff').send({ code: victim.params.handoff, state: victim.state });
  t.is(ok.status, 200);
});

test('a hand-off expires after a minute', async (t) => {
  const landed = await landBrowser(t, 'browser-3@gmail.test');
  const late = await appAt(t, 61_000)
    .post('/api/identity/auth/google/handoff')
    .send({ code: landed.params.handoff, state: landed.state })
    .expect(401);
  t.is(late.body.errorCode, 'IDENTITY.GOOGLE_HANDOFF_INVALID');
});

test('a tampered, expired or denied sign-in lands on the front-end with the error code', async (t) => {
  const started = await appAt(t).get('/api/identity/auth/user/google/authorize').expect(200);
  const tampered = await appAt(t)
    .get('/api/identity/auth/user/google/callback')
    .query({ code: 'x', state: `${started.body.state}x` })
    .set('accept', BROWSER_ACCEPT)
    .expect(303);
  t.deepEqual(Object.fromEntries(new URL(tampered.headers.location!).searchParams), {
    googleSignIn: 'error',
    type: 'user',
    errorCode: 'IDENTITY.GOOGLE_STATE_INVALID',
  });

  const expired = await landBrowser(t, 'browser-4@gmail.test', 11 * 60 * 1000);
  t.like(expired.params, { googleSignIn: 'error', errorCode: 'IDENTITY.GOOGLE_STATE_INVALID' });

  const denied = await appAt(t)
    .get('/api/identity/auth/user/google/callback')
    .query({ error: 'access_denied', state: started.body.state })
    .set('accept', BROWSER_ACCEPT)
    .expect(303);
  t.like(Object.fromEntries(new URL(denied.headers.location!).searchParams), {
    googleSignIn: 'error',
    errorCode: 'IDENTITY.GOOGLE_SIGN_IN_FAILED',
  });
});

test('a replayed browser landing does not sign in twice: Google refuses the used code', async (t) => {
  const started = await appAt(t).get('/api/identity/auth/user/google/authorize').expect(200);
  const { code, state } = google.grant(started.body.authorizationUrl, who('browser-5@gmail.test'));
  const land = () =>
    appAt(t).get('/api/identity/auth/user/google/callback').query({ code, state }).set('accept', BROWSER_ACCEPT).expect(303);
  t.like(Object.fromEntries(new URL((await land()).headers.location!).searchParams), { googleSignIn: 'success' });
  const replay = Object.fromEntries(new URL((await land()).headers.location!).searchParams);
  t.is(replay.googleSignIn, 'error');
  t.is(replay.handoff, undefined);
});
