import { Type } from '@sinclair/typebox';
import test from 'ava';
import Koa from 'koa';
import { pino } from 'pino';
import { SchemaValidationError, sql } from 'slonik';
import request from 'supertest';
import { z } from 'zod';
import type { AppDeps } from '../../app/core/deps.ts';
import { errorMiddleware } from '../../app/core/error-middleware.ts';
import { buildRouter } from '../../app/core/mount.ts';
import { ResponseSchemaMismatch } from '../../app/core/response-check.ts';
import { defineRoute, type Route } from '../../app/core/route.ts';
import { StrictObject } from '../../app/core/schemas.ts';
import { buildOpenApiDocument } from '../../app/core/openapi.ts';
import { areaRoutes } from '../../app/routes.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/app.ts';

const Agent = Type.Object({ id: Type.String(), name: Type.String() });
const AgentList = Type.Object({ agents: Type.Array(Agent) });

/** A route answering `answer`, declared as returning `AgentList`. */
const listing = (path: string, answer: () => unknown) =>
  defineRoute({
    method: 'GET',
    path,
    summary: 'A listing',
    tags: ['test'],
    auth: 'public',
    responses: { 200: { description: 'Agents', schema: AgentList } },
    handler: answer as () => { agents: Array<{ id: string; name: string }> },
  });

/** The app's chain (error middleware, router, `app.on('error')`) over the given routes. */
function appOf(routes: Route[], nodeEnv: 'test' | 'production') {
  const deps = { config: testConfig({ nodeEnv }), logger: pino({ level: 'silent' }), clock: () => new Date() } as unknown as AppDeps;
  const app = new Koa();
  const logged: Error[] = [];
  app.on('error', (error: Error) => logged.push(error));
  app.use(errorMiddleware);
  app.use(buildRouter(routes, deps, undefined).routes());
  return { http: () => request(app.callback()), logged };
}

const routes = [
  listing('/matching', () => ({ agents: [{ id: 'a', name: 'A' }] })),
  listing('/extra-field', () => ({ agents: [{ id: 'a', name: 'A', agencyId: 'secret' }] })),
  listing('/missing-field', () => ({ agents: [{ id: 'a' }] })),
];

test('in tests an answer that matches its declared schema is sent as is', async (t) => {
  const { http, logged } = appOf(routes, 'test');
  const response = await http().get('/api/matching').expect(200);
  t.deepEqual(response.body, { agents: [{ id: 'a', name: 'A' }] });
  t.deepEqual(logged, []);
});

test('in tests an answer with a field its schema does not declare fails with a 500 naming the route and the path', async (t) => {
  const { http, logged } = appOf(routes, 'test');
  const response = await http().get('/api/extra-field').expect(500);
  t.is(response.body.message, 'Internal Server Error');
  t.false(JSON.stringify(response.body).includes('secret'));
  t.is(logged.length, 1);
  t.true(logged[0] instanceof ResponseSchemaMismatch);
  t.regex(logged[0]!.message, /GET \/api\/extra-field .*\/agents\/0\/agencyId is not declared/);
});

test('in tests an answer missing a declared field fails with a 500 naming the path', async (t) => {
  const { http, logged } = appOf(routes, 'test');
  await http().get('/api/missing-field').expect(500);
  t.regex(logged[0]!.message, /GET \/api\/missing-field .*\/agents\/0 must have required property 'name'/);
});

test('outside tests answers are not checked', async (t) => {
  const { http, logged } = appOf(routes, 'production');
  const response = await http().get('/api/extra-field').expect(200);
  t.is(response.body.agents[0].agencyId, 'secret');
  t.deepEqual(logged, []);
});

test('a handler whose return type differs from its declared schema does not type-check', (t) => {
  const route = defineRoute({
    method: 'GET',
    path: '/typed',
    summary: 'Typed',
    tags: ['test'],
    auth: 'public',
    responses: { 200: { description: 'An agent', schema: StrictObject({ id: Type.String() }) } },
    // @ts-expect-error `id` is declared a string
    handler: () => ({ id: 1 }),
  });
  t.is(route.path, '/typed');
});

test('a row with a column the SQL does not select, or a column the row does not declare, fails', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const Row = z.strictObject({ id: z.string(), name: z.string() });
  const missing = await t.throwsAsync(db.pool.one(sql.type(Row)`SELECT 'a' AS id`), { instanceOf: SchemaValidationError });
  t.deepEqual(
    missing!.issues.map((issue) => issue.path),
    [['name']],
  );
  const extra = await t.throwsAsync(db.pool.one(sql.type(Row)`SELECT 'a' AS id, 'A' AS name, 'x' AS surplus`), {
    instanceOf: SchemaValidationError,
  });
  t.deepEqual(
    extra!.issues.map((issue) => [issue.code, (issue as { keys?: string[] }).keys]),
    [['unrecognized_keys', ['surplus']]],
  );
  t.deepEqual(await db.pool.one(sql.type(Row)`SELECT 'a' AS id, 'A' AS name`), { id: 'a', name: 'A' });
});

test('the OpenAPI document derives 401, 403 and 429 from auth, policy and the rate limit', (t) => {
  const guarded = defineRoute({
    method: 'POST',
    path: '/guarded',
    summary: 'Guarded',
    tags: ['test'],
    auth: 'jwt',
    policy: { subject: 'ai.agent', action: 'update' },
    rateLimit: { limit: 5, windowMs: '1m', identifierType: 'userId', source: 'project' },
    responses: { 204: { description: 'Done' } },
    handler: () => undefined,
  });
  const open = defineRoute({
    method: 'GET',
    path: '/open',
    summary: 'Open',
    tags: ['test'],
    auth: 'public',
    responses: { 204: { description: 'Done' } },
    handler: () => undefined,
  });
  const document = buildOpenApiDocument([guarded, open], { title: 't', version: '0' }) as {
    paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
  };
  // 415: a POST refuses an encoded body (app/core/content-encoding.ts).
  t.deepEqual(Object.keys(document.paths['/api/guarded']!.post!.responses), ['204', '401', '403', '415', '429']);
  t.regex(document.paths['/api/guarded']!.post!.responses['403']!.description, /`update` on `ai.agent`/);
  t.deepEqual(Object.keys(document.paths['/api/open']!.get!.responses), ['204']);
});

test('every route with a token, a policy or a rate limit documents its 401, 403 or 429, plans and organization included', (t) => {
  const document = buildOpenApiDocument(areaRoutes, { title: 't', version: '0' }) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const statuses = (method: string, path: string) => Object.keys(document.paths[path]![method]!.responses);
  for (const [method, path] of [
    ['get', '/api/plans'],
    ['post', '/api/plans'],
    ['get', '/api/organization/my'],
    ['patch', '/api/organization/my'],
  ] as const) {
    t.true(
      ['401', '403'].every((status) => statuses(method, path).includes(status)),
      `${method} ${path}`,
    );
  }
  t.true(statuses('post', '/api/identity/auth/user/login').includes('429'));
  for (const route of areaRoutes) {
    const documented = statuses(route.method.toLowerCase(), `/api${route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    t.is(
      documented.includes('401'),
      route.auth !== 'public' || 401 in route.responses || (route.errors ?? []).some((error) => error.status === 401),
      `401 of ${route.method} ${route.path}`,
    );
    t.is(documented.includes('429'), route.rateLimit !== undefined, `429 of ${route.method} ${route.path}`);
  }
});
