import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { codeSentTo, PASSWORD, register } from './principals.ts';

const test = withTestApp(anyTest);

test('no password, code or token appears in the logs of a registration and a sign-in, nor in stored rows', async (t) => {
  const email = 'logscan@secrets.test';
  await register(t, 'user', email).expect(201);
  const code = await codeSentTo(t, email);
  await t.context.t.http().post('/api/identity/auth/user/verify-email').send({ email, code }).expect(200);
  const login = await t.context.t.http().post('/api/identity/auth/user/login').send({ email, password: PASSWORD }).expect(200);
  const refreshed = await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: login.body.refreshToken }).expect(200);

  const logs = t.context.t.logs.text();
  t.true(logs.includes('notification queued in the outbox'), 'the registration was logged');
  const secrets = { password: PASSWORD, code, ...login.body, refreshed: refreshed.body.refreshToken };
  for (const [name, secret] of Object.entries(secrets)) {
    if (typeof secret !== 'string' || secret === 'Bearer') continue;
    t.false(logs.includes(secret), `${name} is in the logs`);
  }

  const stored = await t.context.t.db.pool.one(sql.type(z.object({ everything: z.string() }))`
    SELECT concat_ws(' ',
      (SELECT string_agg(u::text, ' ') FROM users u WHERE email = ${email}),
      (SELECT string_agg(v::text, ' ') FROM verification_codes v),
      (SELECT string_agg(o::text, ' ') FROM notification_outbox o),
      (SELECT string_agg(r::text, ' ') FROM refresh_tokens r)) AS everything`);
  t.false(stored.everything.includes(PASSWORD));
  t.false(stored.everything.includes(code));
  t.false(stored.everything.includes(Buffer.from(code).toString('hex')));
  t.false(stored.everything.includes(login.body.refreshToken));
});
