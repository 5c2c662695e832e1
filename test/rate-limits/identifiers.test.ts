import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

const ip = () => `203.0.113.${randomInt(1, 255)}`;
/** A body the route refuses (400) after the limiter has counted it: no password changes. */
const refusedBody = { currentPassword: 'x' };

test('change-password counts per verified user across addresses, and other users keep their own window', async (t) => {
  const server = t.context.t.rebuild().callback();
  const owner = await t.context.t.login(USERS.owner.email);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await request(server)
      .post('/api/identity/auth/user/change-password')
      .set('x-forwarded-for', ip())
      .set('authorization', `Bearer ${owner}`)
      .send(refusedBody);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [400, 400, 400, 429]);
  const member = await t.context.t.login(USERS.member.email);
  const other = await request(server)
    .post('/api/identity/auth/user/change-password')
    .set('x-forwarded-for', ip())
    .set('authorization', `Bearer ${member}`)
    .send(refusedBody);
  t.is(other.status, 400);
});

test('a forged token naming a user does not select that user window: the address counts instead', async (t) => {
  const server = t.context.t.rebuild().callback();
  const owner = await t.context.t.login(USERS.owner.email);
  for (let i = 0; i < 3; i++) {
    await request(server)
      .post('/api/identity/auth/user/change-password')
      .set('x-forwarded-for', ip())
      .set('authorization', `Bearer ${owner}`)
      .send(refusedBody);
  }
  // The owner's window is full. A token with the owner's claims but another secret is not
  // verified, so it is counted against its address and answered 401 by authentication.
  const forged = jwt.sign(
    {
      sub: USERS.owner.id,
      userId: USERS.owner.id,
      agencyId: ORGANIZATIONS.demoAgency.id,
      type: 'user',
      exp: Math.floor(Date.now() / 1000) + 600,
    },
    'not-the-service-secret-not-the-service-secret',
  );
  const forgedIp = ip();
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await request(server)
      .post('/api/identity/auth/user/change-password')
      .set('x-forwarded-for', forgedIp)
      .set('authorization', `Bearer ${forged}`)
      .send(refusedBody);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [401, 401, 401, 429]);
});

test('the SMS test route exists in development only, limited to 3 in 5 minutes per address', async (t) => {
  await t.context.t.http().post('/api/notifications/sms/test').send({ to: '+15555550100' }).expect(404);
  const development = t.context.t.rebuild({ config: testConfig({ nodeEnv: 'development' }) }).callback();
  const address = ip();
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await request(development)
      .post('/api/notifications/sms/test')
      .set('x-forwarded-for', address)
      .send({ to: '+15555550100' });
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [202, 202, 202, 429]);
});
