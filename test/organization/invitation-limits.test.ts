import anyTest from 'ava';
import request from 'supertest';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

test("invitations: 20 a minute per organization, shared by its users, counted before the body; another organization's are its own", async (t) => {
  const http = request(t.context.t.rebuild().callback());
  const owner = await t.context.t.login(USERS.owner.email);
  const member = await t.context.t.login(USERS.member.email);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const invite = (token: string, body: object) =>
    http.post('/api/organization/my/invitations').set('authorization', `Bearer ${token}`).send(body);
  for (let i = 0; i < 20; i += 1) {
    const answer = await invite(owner, { email: 'not-an-email', role: 'member' });
    t.is(answer.status, 400);
    t.regex(answer.headers['ratelimit-policy'] ?? '', /q=20;w=60/);
  }
  const denied = await invite(owner, { email: 'someone@example.com', role: 'member' });
  t.is(denied.status, 429);
  t.is(denied.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
  t.is(denied.headers['retry-after'], String(denied.body.metadata.retryAfterSeconds));
  // Another user of Demo Agency shares its window; Other Agency has its own.
  t.is((await invite(member, { email: 'someone@example.com', role: 'member' })).status, 429);
  t.is((await invite(other, { email: 'not-an-email', role: 'member' })).status, 400);
});

test('accepting an invitation: 5 per 15 minutes per address, a sixth is 429 whatever its body', async (t) => {
  const http = request(t.context.t.rebuild().callback());
  for (let i = 0; i < 5; i += 1) {
    const wrong = await http
      .post('/api/identity/auth/user/accept-invitation')
      .send({ email: 'a@example.com', code: 'wrong-code-wrong-code-wrong', password: 'a long passphrase 1', name: 'A' });
    t.is(wrong.body.errorCode, 'IDENTITY.INVITATION_INVALID');
  }
  t.is((await http.post('/api/identity/auth/client/accept-invitation').send({})).status, 400, 'the client route has its own window');
  t.is((await http.post('/api/identity/auth/user/accept-invitation').send({})).status, 429);
});
