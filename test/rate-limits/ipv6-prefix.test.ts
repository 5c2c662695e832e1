import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../app/config.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

const LOGIN = '/api/identity/auth/user/login';
const wrongPassword = { email: 'owner@demo.test', password: 'wrong-password' };
/** A /48 of the documentation range no other test of this file uses. */
const fresh48 = () => `2001:db8:${randomInt(1, 0xffff).toString(16)}`;

/** Statuses of one wrong login from each address in turn, every one through the trusted proxy. */
async function wrongLogins(server: Parameters<typeof request>[0], addresses: string[]) {
  const statuses: number[] = [];
  for (const address of addresses) {
    statuses.push((await request(server).post(LOGIN).set('x-forwarded-for', address).send(wrongPassword)).status);
  }
  return statuses;
}

test('fourteen wrong logins from addresses rotating inside one /64 share one budget: 401 ten times, then 429', async (t) => {
  const server = t.context.t.rebuild().callback();
  const net = `${fresh48()}:2`;
  // Each request from another host of <net>::/64, as a client holding the /64 would send them.
  const addresses = Array.from(
    { length: 14 },
    (_, i) => `${net}:${randomInt(0, 0xffff).toString(16)}:${i.toString(16)}:${randomInt(1, 0xffff).toString(16)}:${i + 1}`,
  );
  t.deepEqual(await wrongLogins(server, addresses), [...Array(10).fill(401), 429, 429, 429, 429]);
});

test('the budget is the /56: another /64 of it is refused, another /56 is not', async (t) => {
  const server = t.context.t.rebuild().callback();
  const prefix = fresh48();
  t.deepEqual(
    await wrongLogins(
      server,
      Array.from({ length: 10 }, (_, i) => `${prefix}:${i}::1`),
    ),
    Array(10).fill(401),
  );
  // 2001:db8:x:ff::/64 is in the same /56 as 2001:db8:x:0::/64; 2001:db8:x:100::/64 is the next /56.
  t.deepEqual(await wrongLogins(server, [`${prefix}:ff::1`, `${prefix}:100::1`]), [429, 401]);
});

test('an IPv4-mapped IPv6 address shares the budget of its IPv4 address', async (t) => {
  const server = t.context.t.rebuild().callback();
  const ipv4 = `198.51.100.${randomInt(1, 255)}`;
  const alternating = Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? ipv4 : `::ffff:${ipv4}`));
  t.deepEqual(await wrongLogins(server, alternating), [...Array(10).fill(401), 429]);
});

test('RATE_LIMIT_IPV6_PREFIX sets the prefix: at 64 another /64 of the same /56 has its own budget', async (t) => {
  const server = t.context.t.rebuild({ config: testConfig({ rateLimitIpv6Prefix: 64 }) }).callback();
  const prefix = fresh48();
  t.deepEqual(
    await wrongLogins(
      server,
      Array.from({ length: 11 }, (_, i) => `${prefix}:1::${i + 1}`),
    ),
    [...Array(10).fill(401), 429],
  );
  t.deepEqual(await wrongLogins(server, [`${prefix}:2::1`]), [401]);
});

test('a userId limit without a valid token counts the caller by the same prefix', async (t) => {
  const server = t.context.t.rebuild().callback();
  const prefix = fresh48();
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    // change-password: 3 per 15 minutes per user, else per address; a forged token is no user.
    const response = await request(server)
      .post('/api/identity/auth/user/change-password')
      .set('x-forwarded-for', `${prefix}:${i}::${i + 1}`)
      .set('authorization', 'Bearer not-a-token')
      .send({ currentPassword: 'x' });
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [401, 401, 401, 429]);
});

test('RATE_LIMIT_IPV6_PREFIX defaults to 56 and accepts 32 to 128 only', (t) => {
  const env = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEY: `k1:${Buffer.alloc(32).toString('base64')}` };
  t.is(loadConfig(env).rateLimitIpv6Prefix, 56);
  t.is(loadConfig({ ...env, RATE_LIMIT_IPV6_PREFIX: '64' }).rateLimitIpv6Prefix, 64);
  t.is(loadConfig({ ...env, RATE_LIMIT_IPV6_PREFIX: '128' }).rateLimitIpv6Prefix, 128);
  for (const bad of ['31', '129', '56.5', 'off']) {
    t.throws(() => loadConfig({ ...env, RATE_LIMIT_IPV6_PREFIX: bad }), { message: /RATE_LIMIT_IPV6_PREFIX/ });
  }
});
