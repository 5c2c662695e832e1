import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { pino } from 'pino';
import request from 'supertest';
import { AI_AGENT_NOT_FOUND, agentNotFound } from '../../app/agents/errors.ts';
import { conversationNotFound } from '../../app/chat/errors.ts';
import type { AppDeps } from '../../app/core/deps.ts';
import { errorMiddleware } from '../../app/core/error-middleware.ts';
import { answerableErrors } from '../../app/core/declared-errors.ts';
import { serviceUnavailable, type ErrorCode } from '../../app/core/errors.ts';
import { buildRouter } from '../../app/core/mount.ts';
import { buildOpenApiDocument } from '../../app/core/openapi.ts';
import { defineRoute, type Route } from '../../app/core/route.ts';
import { areaRoutes } from '../../app/routes.ts';
import { CapturedLogs, testConfig } from '../helpers/app.ts';

/** A route declaring `AI.AGENT_NOT_FOUND` whose handler throws what `fail` builds. */
const throwing = (path: string, fail: () => Error) =>
  defineRoute({
    method: 'GET',
    path,
    summary: 'Fails',
    tags: ['test'],
    auth: 'public',
    responses: { 204: { description: 'Never' } },
    errors: [AI_AGENT_NOT_FOUND],
    handler: () => Promise.reject(fail()),
  });

const routes = [
  throwing('/declared', agentNotFound),
  throwing('/undeclared', conversationNotFound),
  throwing('/chain', () => serviceUnavailable(new Error('connection lost'))),
];

/** The app's chain (error middleware, router, `app.on('error')`) over `routes`. */
function appOf(nodeEnv: 'test' | 'development' | 'production') {
  const logs = new CapturedLogs();
  const deps = {
    config: testConfig({ nodeEnv }),
    logger: pino({ level: 'info' }, logs.stream),
    clock: () => new Date(),
  } as unknown as AppDeps;
  const app = new Koa();
  const emitted: Error[] = [];
  app.on('error', (error: Error) => emitted.push(error));
  app.use(errorMiddleware);
  app.use(buildRouter(routes as Route[], deps, undefined).routes());
  return { http: () => request(app.callback()), emitted, logs };
}

test('a coded error its route declares is answered as thrown', async (t) => {
  const { http, emitted } = appOf('test');
  const response = await http().get('/api/declared').expect(404);
  t.is((response.body as { errorCode: string }).errorCode, 'AI.AGENT_NOT_FOUND');
  t.deepEqual(emitted, []);
});

test('in tests a coded error its route does not declare is a 500 naming the route and the code', async (t) => {
  const { http, emitted } = appOf('test');
  const response = await http().get('/api/undeclared').expect(500);
  t.is((response.body as { message: string }).message, 'Internal Server Error');
  t.is(emitted.length, 1);
  t.regex(emitted[0]!.message, /GET \/undeclared answered 404 AI\.CONVERSATION_NOT_FOUND, which its route does not declare/);
});

test("the chain's own codes need no declaration on the route", async (t) => {
  const { http } = appOf('test');
  const response = await http().get('/api/chain').expect(503);
  t.is((response.body as { errorCode: string }).errorCode, 'CORE.SERVICE_UNAVAILABLE');
});

test('in development an undeclared coded error is answered as thrown and logged as an error', async (t) => {
  const { http, logs } = appOf('development');
  const response = await http().get('/api/undeclared').expect(404);
  t.is((response.body as { errorCode: string }).errorCode, 'AI.CONVERSATION_NOT_FOUND');
  const logged = logs.entries.filter((entry) => entry['msg'] === 'coded error not declared on its route');
  t.is(logged.length, 1);
  t.is(logged[0]!['level'], 50);
});

test('in production an undeclared coded error is answered as thrown, unchecked', async (t) => {
  const { http, logs, emitted } = appOf('production');
  await http().get('/api/undeclared').expect(404);
  t.deepEqual(logs.entries, []);
  t.deepEqual(emitted, []);
});

test("the OpenAPI document lists a route's declared codes under their status, as an enum of the envelope", (t) => {
  const document = buildOpenApiDocument(areaRoutes, { title: 't', version: '0' }) as {
    paths: Record<string, Record<string, { responses: Record<string, { description: string; content?: unknown }> }>>;
  };
  const response = document.paths['/api/ai/agents/{agentId}/conversations/{conversationId}']!.get!.responses['404']!;
  t.is(response.description, '`AI.AGENT_NOT_FOUND` or `AI.CONVERSATION_NOT_FOUND`');
  t.like(response.content, {
    'application/json': {
      schema: { properties: { errorCode: { type: 'string', enum: ['AI.AGENT_NOT_FOUND', 'AI.CONVERSATION_NOT_FOUND'] } } },
    },
  });
  const login = document.paths['/api/identity/auth/user/login']!.post!.responses['403']!;
  t.regex(login.description, /`IDENTITY\.EMAIL_NOT_VERIFIED`/);
});

test("every coded error an errors.ts defines is declared by some route, the chain's own by the chain", async (t) => {
  const root = fileURLToPath(new URL('../../app/', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('errors.ts'));
  const defined: ErrorCode[] = [];
  for (const file of files) {
    const module = (await import(join(root, file))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (typeof value === 'object' && value !== null && 'status' in value && 'code' in value) defined.push(value as ErrorCode);
    }
  }
  t.true(defined.length > 40, `${defined.length} codes found`);
  const keyOf = (error: ErrorCode) => `${error.status} ${error.code}`;
  const declared = new Set(areaRoutes.flatMap((route) => answerableErrors(route).map(keyOf)));
  t.deepEqual(
    defined.map(keyOf).filter((key) => !declared.has(key)),
    [],
  );
});
