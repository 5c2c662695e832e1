import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '../../app/config.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

const badLogin = { email: 'owner@demo.test', password: 'wrong-password' };
const spoofed = (i: number) => `10.${i}.${randomInt(0, 255)}.${randomInt(1, 255)}`;

test('TRUST_PROXY_HOPS defaults to 0, accepts a count of proxies and refuses anything else', (t) => {
  const env = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEY: `k1:${Buffer.alloc(32).toString('base64')}` };
  t.is(loadConfig(env).trustProxyHops, 0);
  t.is(loadConfig({ ...env, TRUST_PROXY_HOPS: '2' }).trustProxyHops, 2);
  for (const bad of ['-1', '1.5', 'yes']) {
    t.throws(() => loadConfig({ ...env, TRUST_PROXY_HOPS: bad }), { message: /TRUST_PROXY_HOPS/ });
  }
});

test('with 0 hops X-Forwarded-For is ignored: a direct client that sends a new address each time is still limited', async (t) => {
  const server = t.context.t.rebuild({ config: testConfig({ trustProxyHops: 0 }) }).callback();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const response = await request(server).post('/api/identity/auth/user/login').set('x-forwarded-for', spoofed(i)).send(badLogin);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(401), 429]);
});

test('with 1 hop the last entry is the client: spoofed left-hand entries never open a new window', async (t) => {
  const server = t.context.t.rebuild({ config: testConfig({ trustProxyHops: 1 }) }).callback();
  const client = `198.51.100.${randomInt(1, 255)}`;
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    const response = await request(server)
      .post('/api/identity/auth/user/login')
      .set('x-forwarded-for', `${spoofed(i)}, ${spoofed(i + 100)}, ${client}`)
      .send(badLogin);
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(10).fill(401), 429]);
  // Another address written by the proxy is another client, with its own window.
  const other = await request(server)
    .post('/api/identity/auth/user/login')
    .set('x-forwarded-for', `${client}, 198.51.100.0`)
    .send(badLogin);
  t.is(other.status, 401);
});

test('with 1 hop the request log records the address the proxy wrote, with 0 the socket address', async (t) => {
  const logs = t.context.t.logs;
  const before = logs.lines.length;
  for (const hops of [0, 1]) {
    const server = t.context.t.rebuild({ config: testConfig({ trustProxyHops: hops }) }).callback();
    await request(server).get('/api/health').set('x-forwarded-for', '10.9.9.9, 192.0.2.77').expect(200);
  }
  const ips = logs.entries
    .slice(before)
    // Other tests of this file run concurrently and log their own requests: only the health checks count.
    .filter((entry) => entry.ip !== undefined && entry.path === '/api/health')
    .map((entry) => entry.ip);
  t.true(ips.length === 2 && /127\.0\.0\.1|::1/.test(String(ips[0])), `got ${ips.join(' ')}`);
  t.is(ips[1], '192.0.2.77');
});
