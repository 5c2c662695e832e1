import anyTest from 'ava';
import { sql } from 'slonik';
import { withTestApp } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, insertMcpServer, OTHER_AGENT, RESEARCH, SUPPORT, toolsPath } from './support.ts';

const test = withTestApp(anyTest);

const webSearch = { toolName: 'web_search', permissionStatus: 'always_allow', providerKey: 'web' };
const sendEmail = { toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' };
const createEvent = { toolName: 'create_event', permissionStatus: 'blocked', providerKey: 'calendar' };

test.serial('a PUT stores the set and the GET reads it back in order', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const put = await owner.put(toolsPath(SUPPORT), { tools: [sendEmail, webSearch, createEvent] }).expect(200);
  t.deepEqual(put.body, { agentId: SUPPORT, toolCount: 3 });
  const get = await owner.get(toolsPath(SUPPORT)).expect(200);
  t.deepEqual(get.body, { agentId: SUPPORT, tools: [sendEmail, webSearch, createEvent] });
});

test.serial('a PUT replaces the whole set: tools left out lose their entry', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.put(toolsPath(SUPPORT), { tools: [sendEmail, webSearch] }).expect(200);
  const put = await owner.put(toolsPath(SUPPORT), { tools: [{ ...webSearch, permissionStatus: 'blocked' }] }).expect(200);
  t.deepEqual(put.body, { agentId: SUPPORT, toolCount: 1 });
  const get = await owner.get(toolsPath(SUPPORT)).expect(200);
  t.deepEqual(get.body.tools, [{ ...webSearch, permissionStatus: 'blocked' }]);
});

test.serial('an empty tools array clears the set', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.put(toolsPath(SUPPORT), { tools: [sendEmail] }).expect(200);
  const put = await owner.put(toolsPath(SUPPORT), { tools: [] }).expect(200);
  t.deepEqual(put.body, { agentId: SUPPORT, toolCount: 0 });
  t.deepEqual((await owner.get(toolsPath(SUPPORT)).expect(200)).body, { agentId: SUPPORT, tools: [] });
});

test('an agent without a set reads back an empty list', async (t) => {
  const other = await as(t.context.t, 'owner@other.test');
  t.deepEqual((await other.get(toolsPath(OTHER_AGENT)).expect(200)).body, { agentId: OTHER_AGENT, tools: [] });
});

test('the legacy body { enabledTools } is a 400 naming tools as Required and the unknown key', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.put(toolsPath(RESEARCH), { enabledTools: ['web_search'] }).expect(400);
  t.is(response.body.statusCode, 400);
  t.is(response.body.message, 'Validation failed');
  t.deepEqual(
    [...response.body.errors].sort((a, b) => a.path.join().localeCompare(b.path.join())),
    [
      { path: ['enabledTools'], message: 'Unrecognized key' },
      { path: ['tools'], message: 'Required' },
    ],
  );
});

test('an empty body is a 400 with tools Required', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.put(toolsPath(RESEARCH), {}).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['tools'], message: 'Required' }]);
});

test('element-level schema errors are reported at the element path', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner
    .put(toolsPath(RESEARCH), {
      tools: [webSearch, { toolName: 'fetch_url', permissionStatus: 'sometimes', providerKey: '' }, { toolName: 'list_events' }],
    })
    .expect(400);
  const paths = response.body.errors.map((e: { path: string[] }) => e.path.join('.')).sort();
  t.deepEqual(paths, ['tools.1.permissionStatus', 'tools.1.providerKey', 'tools.2.permissionStatus', 'tools.2.providerKey']);
  const missing = response.body.errors.find((e: { path: string[] }) => e.path.join('.') === 'tools.2.providerKey');
  t.is(missing.message, 'Required');
});

test('an unknown built-in tool is a 400 at its toolName', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner
    .put(toolsPath(RESEARCH), { tools: [webSearch, { toolName: 'launch_rockets', permissionStatus: 'always_allow', providerKey: 'web' }] })
    .expect(400);
  t.deepEqual(response.body.errors, [{ path: ['tools', '1', 'toolName'], message: 'is not a tool of the catalog' }]);
});

test('a providerKey that does not own the tool is a 400 at its providerKey', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.put(toolsPath(RESEARCH), { tools: [{ ...webSearch, providerKey: 'email' }] }).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['tools', '0', 'providerKey'], message: 'must be "web" for this tool' }]);
});

test('a duplicated toolName is a 400 at the repeated element', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner
    .put(toolsPath(RESEARCH), { tools: [webSearch, sendEmail, { ...webSearch, permissionStatus: 'blocked' }] })
    .expect(400);
  t.deepEqual(response.body.errors, [{ path: ['tools', '2', 'toolName'], message: 'is given more than once' }]);
});

test('a tool of an MCP server of the agent is accepted under mcp:<serverId> with any tool name', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const serverId = await insertMcpServer(t.context.t.db.pool, RESEARCH);
  const mcpTool = { toolName: 'create_issue', permissionStatus: 'needs_approval', providerKey: `mcp:${serverId}` };
  await owner.put(toolsPath(RESEARCH), { tools: [webSearch, mcpTool] }).expect(200);
  t.deepEqual((await owner.get(toolsPath(RESEARCH)).expect(200)).body.tools, [webSearch, mcpTool]);
});

test('an mcp provider that is not a server of this agent is a 400 at its providerKey', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const ofOtherAgent = await insertMcpServer(t.context.t.db.pool, SUPPORT);
  const ofOtherAgency = await insertMcpServer(t.context.t.db.pool, OTHER_AGENT, 'otherAgency');
  const tools = [
    { toolName: 'a', permissionStatus: 'always_allow', providerKey: `mcp:${ofOtherAgent}` },
    { toolName: 'b', permissionStatus: 'always_allow', providerKey: `mcp:${ofOtherAgency}` },
    { toolName: 'c', permissionStatus: 'always_allow', providerKey: 'mcp:01900000-0000-7000-8000-00000000abcd' },
    { toolName: 'd', permissionStatus: 'always_allow', providerKey: 'mcp:not-a-uuid' },
  ];
  const response = await owner.put(toolsPath(RESEARCH), { tools }).expect(400);
  t.deepEqual(
    response.body.errors,
    [0, 1, 2, 3].map((i) => ({ path: ['tools', String(i), 'providerKey'], message: 'is not an MCP server of this agent' })),
  );
});

test("deleting an MCP server removes its tools from the agent's set", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'With MCP' }).expect(201);
  const serverId = await insertMcpServer(t.context.t.db.pool, created.body.id);
  await owner
    .put(toolsPath(created.body.id), {
      tools: [webSearch, { toolName: 'x', permissionStatus: 'always_allow', providerKey: `mcp:${serverId}` }],
    })
    .expect(200);
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM agent_mcp_servers WHERE id = ${serverId}`);
  t.deepEqual((await owner.get(toolsPath(created.body.id)).expect(200)).body.tools, [webSearch]);
});

test('a rejected PUT leaves the previous set unchanged', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Unchanged' }).expect(201);
  await owner.put(toolsPath(created.body.id), { tools: [sendEmail] }).expect(200);
  await owner.put(toolsPath(created.body.id), { tools: [webSearch, { ...webSearch, permissionStatus: 'blocked' }] }).expect(400);
  await owner.put(toolsPath(created.body.id), { enabledTools: ['web_search'] }).expect(400);
  t.deepEqual((await owner.get(toolsPath(created.body.id)).expect(200)).body.tools, [sendEmail]);
});

test("another agency's agent is a 404 AI.AGENT_NOT_FOUND for PUT and GET and its set is unchanged", async (t) => {
  const other = await as(t.context.t, 'owner@other.test');
  const otherAgent = await other.post('/api/ai/agents', { name: 'Other private' }).expect(201);
  await other.put(toolsPath(otherAgent.body.id), { tools: [sendEmail] }).expect(200);
  const owner = await as(t.context.t, 'owner@demo.test');
  const put = await owner.put(toolsPath(otherAgent.body.id), { tools: [] }).expect(404);
  const get = await owner.get(toolsPath(otherAgent.body.id)).expect(404);
  t.deepEqual(put.body, AGENT_NOT_FOUND);
  t.deepEqual(get.body, AGENT_NOT_FOUND);
  t.deepEqual((await other.get(toolsPath(otherAgent.body.id)).expect(200)).body.tools, [sendEmail]);
});

test('a missing agent is a 404 AI.AGENT_NOT_FOUND and a non-UUID agentId a 400 at params.agentId', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const missing = await owner.put(toolsPath('01900000-0000-7000-8000-00000000ffff'), { tools: [] }).expect(404);
  t.deepEqual(missing.body, AGENT_NOT_FOUND);
  const bad = await owner.put(toolsPath('123'), { tools: [] }).expect(400);
  t.deepEqual(bad.body.errors, [{ path: ['params', 'agentId'], message: 'must be a UUID v7' }]);
});

test('tool routes answer 401 without a token', async (t) => {
  const put = await t.context.t.http().put(toolsPath(SUPPORT)).send({ tools: [] });
  const get = await t.context.t.http().get(toolsPath(SUPPORT));
  const catalog = await t.context.t.http().get('/api/ai/tools/catalog');
  t.deepEqual([put.status, get.status, catalog.status], [401, 401, 401]);
});

test('concurrent PUTs each apply whole: the final set is exactly one of the bodies', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Racing' }).expect(201);
  const bodies = [[webSearch], [sendEmail, createEvent], [createEvent, webSearch, sendEmail], []];
  const responses = await Promise.all(bodies.map((tools) => owner.put(toolsPath(created.body.id), { tools })));
  t.deepEqual(
    responses.map((r) => r.status),
    [200, 200, 200, 200],
  );
  const final = (await owner.get(toolsPath(created.body.id)).expect(200)).body.tools;
  t.true(bodies.some((tools) => JSON.stringify(tools) === JSON.stringify(final)));
});
