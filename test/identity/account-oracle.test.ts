import anyTest from 'ava';
import { sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import { PASSWORD_RESET_JOB } from '../../app/identity/password-reset.ts';
import { CODE_TTL_MS, MAX_CODE_ATTEMPTS } from '../../app/identity/verification-codes.ts';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { withTestApp } from '../helpers/app.ts';
import { codeSentTo, register, runOutboxWorker, verifiedPrincipal, type T } from './principals.ts';

/**
 * Issue 22: after forgot-password, a wrong reset code answered `metadata.attemptsRemaining` for
 * a real account and nothing for an unknown email, and forgot-password took longer for a real
 * account. These tests play the outside client that compares the answers.
 */
const test = withTestApp(anyTest);

const NEW_PASSWORD = 'a reset passphrase 42';
const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');

const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

const resetWith = (t: T, email: string, code: string, app = t.context.t.http()) =>
  app.post('/api/identity/auth/user/reset-password').send({ email, code, newPassword: NEW_PASSWORD });

const codeCount = (t: T, email: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM verification_codes v JOIN users u ON u.id = v.user_id
    WHERE u.email = ${email} AND v.purpose = 'password_reset'`);

test('after forgot-password, every wrong reset code answers a real account exactly as an unknown email', async (t) => {
  await verifiedPrincipal(t, 'user', 'real@oracle.test');
  for (const email of ['real@oracle.test', 'unknown@oracle.test']) {
    await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email }).expect(202);
  }
  const code = await codeSentTo(t, 'real@oracle.test');
  const wrong = wrongFor(code);
  // Past the allowed number of attempts too: exhausting the code must not show either.
  for (let attempt = 1; attempt <= MAX_CODE_ATTEMPTS + 2; attempt++) {
    const real = answer(await resetWith(t, 'real@oracle.test', wrong));
    const unknown = answer(await resetWith(t, 'unknown@oracle.test', wrong));
    t.deepEqual(real, unknown, `attempt ${attempt}`);
    t.deepEqual(real, {
      status: 400,
      body: {
        statusCode: 400,
        errorCode: 'IDENTITY.VERIFICATION_CODE_INVALID',
        message: { en: 'The verification code is not valid.', es: 'El código de verificación no es válido.' },
      },
    });
  }
});

test('a wrong reset code answers the same once the real code has expired', async (t) => {
  await verifiedPrincipal(t, 'user', 'late@oracle.test');
  await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email: 'late@oracle.test' }).expect(202);
  const code = await codeSentTo(t, 'late@oracle.test');
  const later = request(t.context.t.rebuild({ clock: () => new Date(Date.now() + CODE_TTL_MS + 60_000) }).callback());
  const real = answer(await resetWith(t, 'late@oracle.test', wrongFor(code), later));
  const unknown = answer(await resetWith(t, 'gone@oracle.test', wrongFor(code), later));
  t.deepEqual(real, unknown);
  t.is(real.body && (real.body as { errorCode: string }).errorCode, 'IDENTITY.VERIFICATION_CODE_INVALID');
});

test('every wrong verify-email code answers an unverified account exactly as an unknown email', async (t) => {
  await register(t, 'user', 'pending@oracle.test').expect(201);
  const wrong = wrongFor(await codeSentTo(t, 'pending@oracle.test'));
  for (let attempt = 1; attempt <= MAX_CODE_ATTEMPTS + 2; attempt++) {
    const [real, unknown] = [
      answer(await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email: 'pending@oracle.test', code: wrong })),
      answer(await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email: 'stranger@oracle.test', code: wrong })),
    ];
    t.deepEqual(real, unknown, `attempt ${attempt}`);
  }
});

// Serial: it counts the jobs its own drain runs, which a concurrent test's drain would take.
test.serial(
  'forgot-password does the same work for a real account and an unknown email: one queued job each, and no code yet',
  async (t) => {
    await verifiedPrincipal(t, 'user', 'queued@oracle.test');
    for (const email of ['queued@oracle.test', 'nobody-queued@oracle.test']) {
      await t.context.t.http().post('/api/identity/auth/user/forgot-password').send({ email }).expect(202);
    }
    const real = await listOutboxMessagesTo(t.context.t.db.pool, 'queued@oracle.test');
    const unknown = await listOutboxMessagesTo(t.context.t.db.pool, 'nobody-queued@oracle.test');
    t.deepEqual(
      [real[0]?.template, unknown.map((message) => message.template)],
      [PASSWORD_RESET_JOB, [PASSWORD_RESET_JOB]],
      'the request path only queued the request, for both',
    );
    t.is(await codeCount(t, 'queued@oracle.test'), 0, 'the account was not looked up on the request path');

    t.like(await runOutboxWorker(t), { jobs: 2 });
    t.is(await codeCount(t, 'queued@oracle.test'), 1);
    t.is((await listOutboxMessagesTo(t.context.t.db.pool, 'queued@oracle.test'))[0]?.template, 'password-reset');
    t.deepEqual(await listOutboxMessagesTo(t.context.t.db.pool, 'nobody-queued@oracle.test'), [], 'an unknown email keeps nothing');
  },
);
