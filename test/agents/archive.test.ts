import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { areaRoutes } from '../../app/routes.ts';
import { findAgentInOrganization, listAgentsOfOrganization, lockAgentInOrganization } from '../../sql/agents.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, insertMcpServer, OTHER_AGENT } from '../tools/support.ts';
import { resourceScopeOf } from '../../app/core/route-scope.ts';

const test = withTestApp(anyTest);
const DEMO = ORGANIZATIONS.demoAgency.id;

type Owner = Awaited<ReturnType<typeof as>>;

async function newAgent(owner: Owner, name = 'Retired Bot'): Promise<string> {
  return (await owner.post('/api/ai/agents', { name }).expect(201)).body.id as string;
}

const ids = (response: { body: { agents: { id: string }[] } }) => response.body.agents.map((agent) => agent.id);

test('DELETE archives an agent: 204, gone from the list and its GET, and a second DELETE is 404', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  t.true(ids(await owner.get('/api/ai/agents').expect(200)).includes(agentId));

  const archived = await owner.delete(`/api/ai/agents/${agentId}`).expect(204);
  t.is(archived.text, '');
  t.false(ids(await owner.get('/api/ai/agents').expect(200)).includes(agentId));
  t.deepEqual((await owner.get(`/api/ai/agents/${agentId}`).expect(404)).body, AGENT_NOT_FOUND);
  t.deepEqual((await owner.delete(`/api/ai/agents/${agentId}`).expect(404)).body, AGENT_NOT_FOUND);
  t.is((await owner.put(`/api/ai/agents/${agentId}`, {}).expect(405)).headers.allow, 'DELETE, GET, HEAD, OPTIONS, PATCH');
});

test("another agency's agent is a 404 to DELETE and stays in use", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  t.deepEqual((await owner.delete(`/api/ai/agents/${OTHER_AGENT}`).expect(404)).body, AGENT_NOT_FOUND);
  const other = await as(t.context.t, 'owner@other.test');
  await other.get(`/api/ai/agents/${OTHER_AGENT}`).expect(200);
});

test('archiving needs update on ai.agent: a member gets 403 and the agent stays', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  const member = await as(t.context.t, 'member@demo.test');
  t.is((await member.delete(`/api/ai/agents/${agentId}`).expect(403)).body.statusCode, 403);
  t.is((await owner.get(`/api/ai/agents/${agentId}`).expect(200)).body.id, agentId);
});

test('concurrent DELETEs of one agent archive it once: one 204, the others 404', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  const statuses = (await Promise.all(Array.from({ length: 6 }, () => owner.delete(`/api/ai/agents/${agentId}`)))).map((r) => r.status);
  t.deepEqual(
    statuses.toSorted((a, b) => a - b),
    [204, 404, 404, 404, 404, 404],
  );
});

/**
 * One valid request per route under `/ai/agents/:agentId`: each would pass validation, so only the
 * agent can stop it. The test below fails when a route is added without a line here.
 */
const requests = (agentId: string, serverId: string): Record<string, { body?: object }> => ({
  [`GET /ai/agents/${agentId}`]: {},
  [`PATCH /ai/agents/${agentId}`]: { body: { name: 'Renamed' } },
  [`DELETE /ai/agents/${agentId}`]: {},
  [`POST /ai/agents/${agentId}/chat`]: {
    body: { id: 'archived-chat', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] },
  },
  [`GET /ai/agents/${agentId}/conversations`]: {},
  [`GET /ai/agents/${agentId}/conversations/archived-chat`]: {},
  [`DELETE /ai/agents/${agentId}/conversations/archived-chat`]: {},
  [`GET /ai/agents/${agentId}/chat/archived-chat/stream`]: {},
  [`POST /ai/agents/${agentId}/chat/archived-chat/stop`]: {},
  [`PUT /ai/agents/${agentId}/tools`]: { body: { tools: [] } },
  [`GET /ai/agents/${agentId}/tools`]: {},
  [`GET /ai/agents/${agentId}/tools/effective`]: {},
  [`POST /ai/agents/${agentId}/tool-overrides`]: { body: { toolName: 'web_search' } },
  [`GET /ai/agents/${agentId}/tool-overrides`]: {},
  [`POST /ai/agents/${agentId}/documents`]: { body: { name: 'notes.md', text: '# Notes\n\nA line.' } },
  [`GET /ai/agents/${agentId}/documents`]: {},
  [`DELETE /ai/agents/${agentId}/documents/${uuidv7()}`]: {},
  [`POST /ai/agents/${agentId}/mcp-servers`]: { body: { name: 'Docs', url: 'https://mcp.example.test/mcp', transportType: 'http' } },
  [`GET /ai/agents/${agentId}/mcp-servers`]: {},
  [`GET /ai/agents/${agentId}/mcp-servers/${serverId}`]: {},
  [`PATCH /ai/agents/${agentId}/mcp-servers/${serverId}`]: { body: { name: 'Renamed' } },
  [`DELETE /ai/agents/${agentId}/mcp-servers/${serverId}`]: {},
  [`GET /ai/agents/${agentId}/mcp-servers/${serverId}/tools`]: {},
  [`POST /ai/agents/${agentId}/mcp-servers/${serverId}/oauth/initiate`]: {},
  [`PUT /ai/agents/${agentId}/channel`]: { body: { enabled: true } },
  [`GET /ai/agents/${agentId}/channel`]: {},
  [`POST /ai/agents/${agentId}/channel/secret`]: {},
  [`GET /ai/agents/${agentId}/end-user-conversations`]: {},
  [`GET /ai/agents/${agentId}/end-user-conversations/${uuidv7()}`]: {},
  [`POST /ai/agents/${agentId}/versions/1/restore`]: { body: {} },
  [`POST /ai/agents/${agentId}/eval-cases`]: {
    body: { name: 'Case', messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], expect: { noToolCalls: true } },
  },
  [`GET /ai/agents/${agentId}/eval-cases`]: {},
  [`DELETE /ai/agents/${agentId}/eval-cases/${uuidv7()}`]: {},
  [`POST /ai/agents/${agentId}/eval-runs`]: { body: {} },
  [`GET /ai/agents/${agentId}/eval-runs`]: {},
  [`GET /ai/agents/${agentId}/eval-runs/${uuidv7()}`]: {},
  [`POST /ai/agents/${agentId}/copies`]: { body: { organizationId: ORGANIZATIONS.demoAgency.id } },
});

test('every route under an archived agent answers 404 AI.AGENT_NOT_FOUND, as for a missing agent', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  const serverId = await insertMcpServer(t.context.t.db.pool, agentId);
  await owner.delete(`/api/ai/agents/${agentId}`).expect(204);

  const table = requests(agentId, serverId);
  // Every scoped route has a request in the table (the path's pattern, its ids filled in).
  const patterns = Object.keys(table).map((key) => key.replaceAll(agentId, ':agentId').replace(/\/[0-9a-f-]{36}/g, '/:id'));
  const scoped = areaRoutes
    .filter((route) => resourceScopeOf(route) !== undefined)
    .map(
      (route) =>
        `${route.method} ${route.path
          .replace(/:(serverId|documentId|caseId|runId)/, ':id')
          .replace(':version', '1')
          .replace('end-user-conversations/:conversationId', 'end-user-conversations/:id')
          .replace(':conversationId', 'archived-chat')}`,
    );
  t.deepEqual(patterns.toSorted(), scoped.toSorted());

  for (const [key, { body }] of Object.entries(table)) {
    const [method, path] = key.split(' ') as [string, string];
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const http = t.context.t.http();
    const call = http[verb]('/api' + path).set('authorization', `Bearer ${owner.token}`);
    const response = await (body ? call.send(body) : call);
    t.is(response.status, 404, key);
    t.deepEqual(response.body, AGENT_NOT_FOUND, key);
  }
  // The override DELETE answers 204 for any agent id, as documented; it touches nothing of an archived agent.
  await owner.delete(`/api/ai/agents/${agentId}/tool-overrides/web_search`).expect(204);
});

const count = (t: ExecutionContext<TestContext>, table: string, agentId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE agent_id = ${agentId}`);

test("an archived agent's conversations, documents, MCP servers, tools, overrides and usage rows are kept", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  await owner.post(`/api/ai/agents/${agentId}/documents`, { name: 'faq.md', text: '# FAQ\n\nRefunds take a week.' }).expect(201);
  await owner.put(`/api/ai/agents/${agentId}/tools`, {
    tools: [{ toolName: 'web_search', permissionStatus: 'needs_approval', providerKey: 'web' }],
  });
  await owner.post(`/api/ai/agents/${agentId}/tool-overrides`, { toolName: 'web_search' }).expect(200);
  await insertMcpServer(t.context.t.db.pool, agentId);
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO chat_conversations (id, organization_id, agent_id, user_id, client_id, title, created_at, updated_at)
    SELECT ${uuidv7()}, ${DEMO}, ${agentId}, id, 'kept-chat', 'Kept', now(), now() FROM users WHERE email = 'owner@demo.test'`);
  await owner.post('/api/ai/org-usage/events', {
    events: [
      {
        id: `kept-${agentId}`,
        agentId,
        modelId: 'openai/gpt-4o-mini',
        actionType: 'user_interaction',
        source: 'system',
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 0,
        createdAt: new Date().toISOString(),
      },
    ],
  });
  const tables = [
    'knowledge_documents',
    'agent_tool_permissions',
    'tool_overrides',
    'agent_mcp_servers',
    'chat_conversations',
    'usage_events',
  ];
  const before = await Promise.all(tables.map((table) => count(t, table, agentId)));
  t.true(
    before.every((n) => n === 1),
    `${tables.join(', ')}: ${before.join(', ')}`,
  );

  await owner.delete(`/api/ai/agents/${agentId}`).expect(204);
  t.deepEqual(await Promise.all(tables.map((table) => count(t, table, agentId))), before);
  // The override DELETE finds no agent in use: the archived agent's override stays.
  await owner.delete(`/api/ai/agents/${agentId}/tool-overrides/web_search`).expect(204);
  t.is(await count(t, 'tool_overrides', agentId), 1);
});

test('the lookups every caller goes through skip an archived agent', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = await newAgent(owner);
  const db = t.context.t.db.pool;
  t.not(await findAgentInOrganization(db, DEMO, agentId), null);
  await owner.delete(`/api/ai/agents/${agentId}`).expect(204);
  t.is(await findAgentInOrganization(db, DEMO, agentId), null);
  t.is(await db.transaction((tx) => lockAgentInOrganization(tx, DEMO, agentId)), null);
  t.false((await listAgentsOfOrganization(db, DEMO)).some((agent) => agent.id === agentId));
});
