import anyTest from 'ava';
import request from 'supertest';
import { CODE_TTL_MS, MAX_CODE_ATTEMPTS } from '../../app/identity/verification-codes.ts';
import { withTestApp } from '../helpers/app.ts';
import { codeSentTo, lastMessageTo, PASSWORD, register, type T } from './principals.ts';

const test = withTestApp(anyTest);

const verify = (t: T, email: string, code: string, app = t.context.t.http()) =>
  app.post('/api/identity/auth/user/verify-email').send({ email, code });

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

test('a wrong code is refused without saying how many attempts remain, and the right one still works', async (t) => {
  await register(t, 'user', 'wrong@codes.test').expect(201);
  const code = await codeSentTo(t, 'wrong@codes.test');
  const response = await verify(t, 'wrong@codes.test', otherCode(code)).expect(400);
  t.is(response.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
  t.is(response.body.metadata, undefined);
  await verify(t, 'wrong@codes.test', code).expect(200);
});

test('after the allowed number of wrong attempts even the right code is refused as exhausted', async (t) => {
  await register(t, 'user', 'exhausted@codes.test').expect(201);
  const code = await codeSentTo(t, 'exhausted@codes.test');
  for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) await verify(t, 'exhausted@codes.test', otherCode(code)).expect(400);
  const response = await verify(t, 'exhausted@codes.test', code).expect(400);
  t.is(response.body.errorCode, 'IDENTITY.VERIFICATION_CODE_EXHAUSTED');
});

test('an expired code is refused as expired', async (t) => {
  await register(t, 'user', 'expired@codes.test').expect(201);
  const code = await codeSentTo(t, 'expired@codes.test');
  const later = t.context.t.rebuild({ clock: () => new Date(Date.now() + CODE_TTL_MS + 1000) });
  const response = await verify(t, 'expired@codes.test', code, request(later.callback())).expect(400);
  t.is(response.body.errorCode, 'IDENTITY.VERIFICATION_CODE_EXPIRED');
});

test('signing in while unverified sends a new code that replaces the old one', async (t) => {
  await register(t, 'user', 'resend@codes.test').expect(201);
  const first = await codeSentTo(t, 'resend@codes.test');
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'resend@codes.test', password: PASSWORD }).expect(403);
  const message = await lastMessageTo(t, 'resend@codes.test');
  t.is(message.count, 2);
  t.is(message.template, 'email-verification');
  const second = await codeSentTo(t, 'resend@codes.test');
  if (first !== second) {
    const stale = await verify(t, 'resend@codes.test', first).expect(400);
    t.is(stale.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
  }
  await verify(t, 'resend@codes.test', second).expect(200);
});

test('a used code cannot verify again, and an unknown email looks like a wrong code', async (t) => {
  await register(t, 'user', 'once@codes.test').expect(201);
  const code = await codeSentTo(t, 'once@codes.test');
  await verify(t, 'once@codes.test', code).expect(200);
  const again = await verify(t, 'once@codes.test', code).expect(400);
  const unknown = await verify(t, 'nobody@codes.test', code).expect(400);
  t.deepEqual(again.body, unknown.body);
  t.is(unknown.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
});

test('a code of a user does not verify a client with the same email', async (t) => {
  await register(t, 'user', 'both@codes.test').expect(201);
  const userCode = await codeSentTo(t, 'both@codes.test');
  await register(t, 'client', 'both@codes.test').expect(201);
  const clientCode = await codeSentTo(t, 'both@codes.test');
  if (userCode !== clientCode) {
    const refused = await t.context.t
      .http()
      .post('/api/identity/auth/client/verify-email')
      .send({ email: 'both@codes.test', code: userCode })
      .expect(400);
    t.is(refused.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
  }
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/client/verify-email')
    .send({ email: 'both@codes.test', code: clientCode })
    .expect(200);
  t.deepEqual(response.body, { email: 'both@codes.test', emailVerified: true });
});

test('a code that is not six digits is a 400 at its path', async (t) => {
  const response = await verify(t, 'x@codes.test', '12ab').expect(400);
  t.deepEqual(response.body.errors, [{ path: ['code'], message: 'must be a 6-digit code' }]);
});
