import anyTest from 'ava';
import request from 'supertest';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { withTestApp } from '../helpers/app.ts';
import { codeSentTo, lastMessageTo, PASSWORD, register, runOutboxWorker, verifiedPrincipal } from './principals.ts';

const test = withTestApp(anyTest);
const NEW_PASSWORD = 'a reset passphrase 42';

test('forgot-password answers 202 {} and emails a reset code whose only six-digit run resets the password', async (t) => {
  const session = await verifiedPrincipal(t, 'user', 'forgot@reset.test');
  const forgot = await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email: 'Forgot@Reset.test' }).expect(202);
  t.deepEqual(forgot.body, {});
  const message = await lastMessageTo(t, 'forgot@reset.test');
  t.is(message.template, 'password-reset');
  t.is(message.text.match(/(?<!\d)\d{6}(?!\d)/g)?.length, 1);
  const code = await codeSentTo(t, 'forgot@reset.test');

  const reset = await t.context.t
    .http()
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'forgot@reset.test', code, newPassword: NEW_PASSWORD })
    .expect(204);
  t.deepEqual(reset.body, {});
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: session.refreshToken }).expect(401);
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'forgot@reset.test', password: PASSWORD }).expect(401);
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'forgot@reset.test', password: NEW_PASSWORD }).expect(200);

  const again = await t.context.t
    .http()
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'forgot@reset.test', code, newPassword: 'yet another passphrase' })
    .expect(400);
  t.is(again.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID', 'a used code does not work twice');
});

test('forgot-password answers the same for an unknown email and sends nothing', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/client/forgot-password')
    .send({ email: 'nobody@reset.test' })
    .expect(202);
  t.deepEqual(response.body, {});
  await runOutboxWorker(t);
  t.deepEqual(await listOutboxMessagesTo(t.context.t.db.pool, 'nobody@reset.test'), []);
  const reset = await t.context.t
    .http()
    .post('/api/identity/auth/client/reset-password')
    .send({ email: 'nobody@reset.test', code: '123456', newPassword: NEW_PASSWORD })
    .expect(400);
  t.is(reset.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
});

test('wrong codes are counted without saying how many remain, then the code is exhausted even when right', async (t) => {
  await verifiedPrincipal(t, 'client', 'guess@reset.test');
  await t.context.t.http().post('/api/identity/auth/client/forgot-password').send({ email: 'guess@reset.test' }).expect(202);
  const code = await codeSentTo(t, 'guess@reset.test');
  const wrong = code === '000000' ? '000001' : '000000';
  for (let attempt = 1; attempt <= 6; attempt += 1) {
    const response = await t.context.t
      .http()
      .post('/api/identity/auth/client/reset-password')
      .send({ email: 'guess@reset.test', code: wrong, newPassword: NEW_PASSWORD })
      .expect(400);
    t.deepEqual(response.body, {
      statusCode: 400,
      errorCode: 'IDENTITY.VERIFICATION_CODE_INVALID',
      message: { en: 'The verification code is not valid.', es: 'El código de verificación no es válido.' },
    });
  }
  const exhausted = await t.context.t
    .http()
    .post('/api/identity/auth/client/reset-password')
    .send({ email: 'guess@reset.test', code, newPassword: NEW_PASSWORD })
    .expect(400);
  t.is(exhausted.body.errorCode, 'IDENTITY.VERIFICATION_CODE_EXHAUSTED');
  await t.context.t.http().post('/api/identity/auth/client/login').send({ email: 'guess@reset.test', password: PASSWORD }).expect(200);
});

test('an expired reset code is refused with IDENTITY.VERIFICATION_CODE_EXPIRED', async (t) => {
  await verifiedPrincipal(t, 'user', 'late@reset.test');
  await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email: 'late@reset.test' }).expect(202);
  const code = await codeSentTo(t, 'late@reset.test');
  const later = t.context.t.rebuild({ clock: () => new Date(Date.now() + 16 * 60 * 1000) });
  const response = await request(later.callback())
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'late@reset.test', code, newPassword: NEW_PASSWORD })
    .expect(400);
  t.is(response.body.errorCode, 'IDENTITY.VERIFICATION_CODE_EXPIRED');
});

test('a reset code does not verify an email, and a verification code does not reset a password', async (t) => {
  await register(t, 'user', 'cross@reset.test').expect(201);
  const verification = await codeSentTo(t, 'cross@reset.test');
  const misuse = await t.context.t
    .http()
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'cross@reset.test', code: verification, newPassword: NEW_PASSWORD })
    .expect(400);
  t.is(misuse.body.errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
  await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email: 'cross@reset.test' }).expect(202);
  const resetCode = await codeSentTo(t, 'cross@reset.test');
  const verify = await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email: 'cross@reset.test', code: resetCode });
  t.is(verify.status, 400);
  // Resetting proves the mailbox: the unverified account can sign in afterwards.
  await t.context.t
    .http()
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'cross@reset.test', code: resetCode, newPassword: NEW_PASSWORD })
    .expect(204);
  await t.context.t.http().post('/api/identity/auth/user/login').send({ email: 'cross@reset.test', password: NEW_PASSWORD }).expect(200);
});

test('reset-password validates its body like the rest of the API', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/identity/auth/user/reset-password')
    .send({ email: 'x@reset.test', code: '12', newPassword: 'short' })
    .expect(400);
  t.is(response.body.message, 'Validation failed');
  t.deepEqual((response.body.errors as { path: string[] }[]).map((error) => error.path.join('.')).sort(), ['code', 'newPassword']);
});
