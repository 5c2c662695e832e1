import anyTest from 'ava';
import { randomInt } from 'node:crypto';
import request from 'supertest';
import { ALL_RATE_LIMITS, PROJECT_RATE_LIMITS, RATE_LIMITS } from '../../app/rate-limits.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { rateLimits: true });

const clientIp = () => `192.0.2.${randomInt(1, 255)}`;
const MISSING = '01900000-0000-7000-8000-00000000ffff';
const google = {
  clientId: 'test-client',
  clientSecret: 'test-secret',
  authorizationUrl: 'https://accounts.example.test/auth',
  tokenUrl: 'https://accounts.example.test/token',
  userinfoUrl: 'https://accounts.example.test/userinfo',
};

test('every declared limit names a mounted route, and the project adds its own after the 13 of the interface', (t) => {
  const app = t.context.t.rebuild({ config: testConfig({ google, nodeEnv: 'development' }) });
  const mounted = new Set(app.routes.map((route) => `${route.method} /api${route.path}`));
  for (const declaration of ALL_RATE_LIMITS) t.true(mounted.has(declaration.endpoint), declaration.endpoint);
  t.is(RATE_LIMITS.length, 13);
  t.deepEqual(ALL_RATE_LIMITS.slice(13), [...PROJECT_RATE_LIMITS]);
  t.true(PROJECT_RATE_LIMITS.every((row) => !RATE_LIMITS.some((documented) => documented.endpoint === row.endpoint)));
});

test('MCP OAuth initiate is limited to 10 a minute per user, whatever the answer', async (t) => {
  const server = t.context.t.rebuild().callback();
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    // A different address each time: the window is the user's.
    const response = await request(server)
      .post(`/api/ai/agents/${AGENTS.support.id}/mcp-servers/${MISSING}/oauth/initiate`)
      .set('authorization', auth)
      .set('x-forwarded-for', clientIp());
    statuses.push(response.status);
  }
  t.deepEqual(statuses.slice(10), [429]);
  t.false(statuses.slice(0, 10).includes(429));
  const denied = await request(server)
    .post(`/api/ai/agents/${AGENTS.support.id}/mcp-servers/${MISSING}/oauth/initiate`)
    .set('authorization', auth);
  t.is(denied.headers['retry-after'], String(denied.body.metadata.retryAfterSeconds));
  t.is(denied.body.errorCode, 'CORE.RATE_LIMIT_EXCEEDED');
});

test('Google authorize is limited to 10 a minute per address and carries its own policy name', async (t) => {
  const server = t.context.t.rebuild({ config: testConfig({ google }) }).callback();
  const ip = clientIp();
  const statuses: number[] = [];
  let policy: string | undefined;
  for (let i = 0; i < 11; i++) {
    const response = await request(server).get('/api/identity/auth/user/google/authorize').set('x-forwarded-for', ip);
    statuses.push(response.status);
    policy ??= response.headers['ratelimit-policy'];
  }
  t.deepEqual(statuses, [...Array(10).fill(200), 429]);
  t.is(policy, '"user-google-authorize";q=10;w=60');
  // The client flow has a window of its own.
  const client = await request(server)
    .get(`/api/identity/auth/client/google/authorize?organizationId=${ORGANIZATIONS.demoAgency.id}`)
    .set('x-forwarded-for', ip);
  t.is(client.status, 200);
});

test('business registration is limited like register: 5 per 15 minutes per address, invalid bodies included', async (t) => {
  const server = t.context.t.rebuild().callback();
  const ip = clientIp();
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    const response = await request(server)
      .post('/api/identity/auth/user/register/business')
      .set('x-forwarded-for', ip)
      .send({ businessName: 'x' });
    statuses.push(response.status);
  }
  t.deepEqual(statuses, [...Array(5).fill(400), 429]);
});

test('adding MCP servers is limited to 30 a minute per user', async (t) => {
  const server = t.context.t.rebuild().callback();
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    const response = await request(server).post(`/api/ai/agents/${MISSING}/mcp-servers`).set('authorization', auth).send({});
    statuses.push(response.status);
  }
  t.false(statuses.slice(0, 30).includes(429));
  t.is(statuses[30], 429);
});
