import anyTest from 'ava';
import jwt from 'jsonwebtoken';
import Koa from 'koa';
import { sql } from 'slonik';
import request from 'supertest';
import { authenticate, requireAccess } from '../../app/core/auth.ts';
import { errorMiddleware } from '../../app/core/error-middleware.ts';
import { USERS, ORGANIZATIONS, ROLES } from '../../seeds/demo-fixtures.ts';
import { TEST_JWT_SECRET, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  sub: USERS.owner.id,
  userId: USERS.owner.id,
  agencyId: ORGANIZATIONS.demoAgency.id,
  type: 'user',
  iat: now(),
  exp: now() + 600,
  ...overrides,
});
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

const rejected: Array<[string, () => string]> = [
  ['an expired token', () => jwt.sign(claims({ iat: now() - 3600, exp: now() - 60 }), TEST_JWT_SECRET)],
  ['an unsigned token (alg none)', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
  ['a token signed with another secret', () => jwt.sign(claims(), 'another-secret-another-secret-another-secret')],
  ['a token signed with HS512', () => jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS512' })],
  [
    'a token without exp',
    () => {
      const { exp: _exp, ...rest } = claims();
      return jwt.sign(rest, TEST_JWT_SECRET, { noTimestamp: false });
    },
  ],
  ['a malformed token', () => 'not.a.jwt'],
  ['an oversized token', () => jwt.sign(claims({ padding: 'x'.repeat(6000) }), TEST_JWT_SECRET)],
  ['a token missing the agencyId claim', () => jwt.sign(claims({ agencyId: undefined }), TEST_JWT_SECRET)],
];

for (const [name, make] of rejected) {
  test(`${name} is rejected with 401`, async (t) => {
    const response = await t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${make()}`).expect(401);
    t.deepEqual(response.body, { statusCode: 401, message: 'Invalid or missing access token' });
  });
}

test('a well-formed HS256 token with every claim is accepted', async (t) => {
  const token = jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS256' });
  const response = await t.context.t.http().get('/api/identity/me').set('authorization', `Bearer ${token}`).expect(200);
  t.is(response.body.email, USERS.owner.email);
});

test('an access token from login carries the contract claims and lasts 15 minutes', async (t) => {
  const token = await t.context.t.login(USERS.owner.email);
  const decoded = jwt.decode(token, { complete: true })!;
  t.is(decoded.header.alg, 'HS256');
  const payload = decoded.payload as Record<string, unknown>;
  t.is(payload.sub, USERS.owner.id);
  t.is(payload.userId, USERS.owner.id);
  t.is(payload.agencyId, ORGANIZATIONS.demoAgency.id);
  t.is(payload.type, 'user');
  t.is((payload.exp as number) - (payload.iat as number), 15 * 60);
});

test('a revoked grant stops working on the next request', async (t) => {
  // A route guarded by requireAccess, mounted the way every area mounts its routes.
  const app = new Koa();
  app.use(errorMiddleware);
  const deps = t.context.t.app.deps;
  app.use(authenticate(TEST_JWT_SECRET, () => new Date()));
  app.use(requireAccess(deps, { grants: [{ subject: 'ai.agent', action: 'read' }], acts: false }));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = app.callback();
  const token = await t.context.t.login(USERS.otherOwner.email);
  await request(server).get('/').set('authorization', `Bearer ${token}`).expect(200);
  await t.context.t.db.pool.query(
    sql.unsafe`DELETE FROM user_roles WHERE user_id = ${USERS.otherOwner.id} AND role_id = ${ROLES.agencyOwner.id}`,
  );
  // Same, still unexpired token: only the grant, read at request time, is gone.
  const response = await request(server).get('/').set('authorization', `Bearer ${token}`).expect(403);
  t.deepEqual(response.body, { statusCode: 403, message: 'Forbidden' });
});
