import anyTest from 'ava';
import { pino } from 'pino';
import { AI_AGENT_NOT_FOUND } from '../../app/agents/errors.ts';
import { AGENT_SCOPE } from '../../app/agents/scope.ts';
import type { AppDeps } from '../../app/core/deps.ts';
import { buildRouter } from '../../app/core/mount.ts';
import { buildOpenApiDocument, openApiPath } from '../../app/core/openapi.ts';
import { defineRoute, fullPath, type Route } from '../../app/core/route.ts';
import { StrictObject, Uuid } from '../../app/core/schemas.ts';
import { ORGANIZATION_SCOPE, resourceScopeOf } from '../../app/core/route-scope.ts';
import { areaRoutes } from '../../app/routes.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const scoped = areaRoutes.filter((route) => resourceScopeOf(route));
const AGENT_NOT_FOUND = {
  statusCode: 404,
  errorCode: 'AI.AGENT_NOT_FOUND',
  message: { en: 'Agent not found', es: 'Agente no encontrado' },
};
/** A concrete path of a route, the agent given and every other parameter a fresh UUID v7. */
const pathOf = (route: Route, agentId: string) =>
  fullPath(route).replace(/:([A-Za-z]+)/g, (_match, name: string) =>
    name === 'agentId' ? agentId : '01900000-0000-7000-8000-00000000fffe',
  );

test('every route under an agent declares the agent scope and none lists AI.AGENT_NOT_FOUND itself', (t) => {
  const underAgent = areaRoutes.filter((route) => route.path.includes('/:agentId'));
  // Removing an override answers 204 for any agent id: nothing of another organization is touched (docs/agents-and-tools.md).
  // The versions list reads an archived agent too (docs/evaluations.md): it looks the agent up itself, 404 AI.AGENT_NOT_FOUND.
  const unscoped = underAgent.filter((route) => route.scope !== AGENT_SCOPE).map((route) => `${route.method} ${route.path}`);
  t.deepEqual(unscoped.sort(), ['DELETE /ai/agents/:agentId/tool-overrides/:toolName', 'GET /ai/agents/:agentId/versions']);
  t.is(areaRoutes.find((route) => route.path === '/ai/agents/:agentId/tool-overrides/:toolName')?.scope, ORGANIZATION_SCOPE);
  t.true(scoped.length >= 19, `${scoped.length} scoped routes`);
  const listing = areaRoutes.filter((route) => route.errors?.some((code) => code === AI_AGENT_NOT_FOUND));
  t.deepEqual(
    listing.map((route) => `${route.method} ${route.path}`),
    ['GET /ai/agents/:agentId/versions'],
  );
});

test("the OpenAPI document answers the scope's 404 beside the route's own 404 codes, and names the scope", (t) => {
  const document = buildOpenApiDocument(areaRoutes, { title: 't', version: '0' }) as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }>; 'x-scope'?: unknown }>
    >;
  };
  for (const route of scoped) {
    const operation = document.paths[openApiPath(fullPath(route))]![route.method.toLowerCase()]!;
    t.deepEqual(operation['x-scope'], { name: 'agent', parameter: 'agentId', errorCode: 'AI.AGENT_NOT_FOUND' }, route.path);
    t.true(JSON.stringify(operation.responses['404']).includes('"AI.AGENT_NOT_FOUND"'), `${route.method} ${route.path}`);
  }
  const conversation = document.paths['/api/ai/agents/{agentId}/conversations/{conversationId}']!.get!;
  const codes = JSON.stringify(conversation.responses['404']);
  t.true(codes.includes('"AI.AGENT_NOT_FOUND"') && codes.includes('"AI.CONVERSATION_NOT_FOUND"'));
  t.is(document.paths['/api/ai/agents']!.get!['x-scope'], undefined);
});

test('a scope on a public route, or on a path without its parameter, is refused when the router is built', (t) => {
  const deps = { config: testConfig(), logger: pino({ level: 'silent' }), clock: () => new Date() } as unknown as AppDeps;
  const spec = { method: 'GET' as const, summary: 's', tags: ['test'], responses: { 204: { description: 'd' } }, handler: () => undefined };
  const params = StrictObject({ agentId: Uuid() });
  const publicRoute = defineRoute({ ...spec, path: '/x/:agentId', auth: 'public', scope: AGENT_SCOPE, schemas: { params } });
  const noParameter = defineRoute({
    ...spec,
    path: '/y/:id',
    auth: 'jwt',
    scope: AGENT_SCOPE,
    schemas: { params: StrictObject({ id: Uuid() }) },
  });
  t.throws(() => buildRouter([publicRoute], deps, undefined), { message: /scope `agent` needs auth 'jwt'/ });
  t.throws(() => buildRouter([noParameter], deps, undefined), { message: /:agentId/ });
});

test("on every scoped route a malformed agent id is a 400 before any lookup, and another organization's agent the scope's 404", async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  for (const route of scoped) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    // The body is read before validation: a multipart route (the knowledge upload) gets a body it reads, its JSON form.
    const body = route.body?.kind === 'multipart' ? { name: 'note.txt', text: 'A note.' } : undefined;
    const send = (agentId: string) => t.context.t.http()[method](pathOf(route, agentId)).set('authorization', `Bearer ${token}`).send(body);
    const malformed = await send('not-a-uuid');
    t.is(malformed.status, 400, `${route.method} ${route.path}`);
    t.deepEqual(malformed.body.errors?.[0]?.path, ['params', 'agentId'], `${route.method} ${route.path}`);
    // A body is validated before the scope: the bodiless routes show the scope's answer directly.
    if (route.schemas?.body) continue;
    const foreign = await send(AGENTS.otherHelper.id);
    t.deepEqual([foreign.status, foreign.body], [404, AGENT_NOT_FOUND], `${route.method} ${route.path}`);
  }
});

test("a caller without the route's policy is a 403 on every scoped route, whatever the id: malformed, another organization's or its own", async (t) => {
  // The scope's read starts beside the policy query; the policy's answer still comes first.
  const token = await t.context.t.login('member@demo.test');
  for (const route of scoped.filter((candidate) => candidate.policy)) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    for (const agentId of ['not-a-uuid', AGENTS.otherHelper.id, AGENTS.support.id]) {
      const answer = await t.context.t.http()[method](pathOf(route, agentId)).set('authorization', `Bearer ${token}`);
      t.is(answer.status, 403, `${route.method} ${route.path} ${agentId}`);
    }
  }
});

test('every token route under /ai, /organization/my and /agency acts in an organization, but the platform-wide ones', (t) => {
  const tenantPaths = /^\/(ai|organization\/my|agency)(\/|$)/;
  // The tool catalog and the price list are the platform's; the OAuth landing routes finish a flow bound to its user and organization.
  const platformWide = ['GET /ai/tools/catalog', 'GET /ai/model-pricing', 'PUT /ai/model-pricing', 'POST /ai/mcp-oauth/complete'];
  const unscoped = areaRoutes
    // Routes of a user's access token (an ingestion route's caller, key or token, carries its organization: app/core/api-key-auth.ts).
    .filter((route) => tenantPaths.test(route.path) && route.auth === 'jwt')
    .filter((route) => route.scope === undefined)
    .map((route) => `${route.method} ${route.path}`);
  t.deepEqual(unscoped.toSorted(), platformWide.toSorted());
});
