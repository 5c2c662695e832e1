import anyTest from 'ava';
import { offeredToolsOf } from '../../app/tools/resolution.ts';
import { withTestApp } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, type Ctx, effectivePath, insertMcpServer, MEMBER, OTHER_AGENT, overridesPath, toolsPath } from './support.ts';

const test = withTestApp(anyTest);

type Offered = { toolName: string; requiresApproval: boolean; permissionStatus: string; providerKey: string; description: string | null };

const SET = [
  { toolName: 'web_search', permissionStatus: 'always_allow', providerKey: 'web' },
  { toolName: 'send_email', permissionStatus: 'needs_approval', providerKey: 'email' },
  { toolName: 'create_event', permissionStatus: 'blocked', providerKey: 'calendar' },
];

/** A fresh agent of Demo Agency with SET as its tools. */
async function agentWithSet(t: Ctx) {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Resolver' }).expect(201);
  await owner.put(toolsPath(created.body.id), { tools: SET }).expect(200);
  return created.body.id as string;
}

const offered = async (t: Ctx, email: string, agentId: string) => {
  const caller = await as(t.context.t, email);
  const response = await caller.get(effectivePath(agentId)).expect(200);
  return Object.fromEntries((response.body.tools as Offered[]).map((tool) => [tool.toolName, tool]));
};

test('always_allow is offered without approval, needs_approval with approval, blocked and absent tools are left out', async (t) => {
  const agentId = await agentWithSet(t);
  const tools = await offered(t, 'owner@demo.test', agentId);
  t.deepEqual(Object.keys(tools).sort(), ['send_email', 'web_search']);
  t.like(tools.web_search, { permissionStatus: 'always_allow', requiresApproval: false, providerKey: 'web' });
  t.like(tools.send_email, { permissionStatus: 'needs_approval', requiresApproval: true, providerKey: 'email' });
  t.is(typeof tools.web_search?.description, 'string');
  // Without WEB_SEARCH_URL and SMTP_URL (the tests' configuration) the chat offers neither: the entries say so.
  t.like(tools.web_search, { available: false });
  t.like(tools.send_email, { available: false });
  t.false('create_event' in tools);
  t.false('list_events' in tools);
});

test('an override bypasses needs_approval for its own user only', async (t) => {
  const agentId = await agentWithSet(t);
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.post(overridesPath(agentId), { toolName: 'send_email' }).expect(200);
  t.false((await offered(t, 'owner@demo.test', agentId)).send_email?.requiresApproval);
  t.true((await offered(t, 'member@demo.test', agentId)).send_email?.requiresApproval);
});

test('a deleted override brings the approval prompt back', async (t) => {
  const agentId = await agentWithSet(t);
  const member = await as(t.context.t, 'member@demo.test');
  await member.post(overridesPath(agentId), { toolName: 'send_email' }).expect(200);
  t.false((await offered(t, 'member@demo.test', agentId)).send_email?.requiresApproval);
  await member.delete(`${overridesPath(agentId)}/send_email`).expect(204);
  t.true((await offered(t, 'member@demo.test', agentId)).send_email?.requiresApproval);
});

test('an override does nothing for a blocked tool or a tool outside the set', async (t) => {
  const agentId = await agentWithSet(t);
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.post(overridesPath(agentId), { toolName: 'create_event' }).expect(200);
  await owner.post(overridesPath(agentId), { toolName: 'list_events' }).expect(200);
  const tools = await offered(t, 'owner@demo.test', agentId);
  t.deepEqual(Object.keys(tools).sort(), ['send_email', 'web_search']);
});

test('changing a level takes effect at once: unblocking offers the tool, blocking removes it', async (t) => {
  const agentId = await agentWithSet(t);
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner
    .put(toolsPath(agentId), {
      tools: [
        { toolName: 'web_search', permissionStatus: 'blocked', providerKey: 'web' },
        { toolName: 'create_event', permissionStatus: 'needs_approval', providerKey: 'calendar' },
      ],
    })
    .expect(200);
  const tools = await offered(t, 'owner@demo.test', agentId);
  t.deepEqual(Object.keys(tools), ['create_event']);
  t.true(tools.create_event?.requiresApproval);
});

test('an MCP server tool is offered with its provider and no catalog description', async (t) => {
  const agentId = await agentWithSet(t);
  const serverId = await insertMcpServer(t.context.t.db.pool, agentId);
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner
    .put(toolsPath(agentId), { tools: [{ toolName: 'search_repos', permissionStatus: 'needs_approval', providerKey: `mcp:${serverId}` }] })
    .expect(200);
  const tools = await offered(t, 'owner@demo.test', agentId);
  t.deepEqual(tools.search_repos, {
    toolName: 'search_repos',
    providerKey: `mcp:${serverId}`,
    permissionStatus: 'needs_approval',
    requiresApproval: true,
    description: null,
    available: true,
  });
});

test("the effective tools of another agency's agent are a 404 AI.AGENT_NOT_FOUND", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  t.deepEqual((await owner.get(effectivePath(OTHER_AGENT)).expect(404)).body, AGENT_NOT_FOUND);
});

test('the resolution function answers the same map as the endpoint', async (t) => {
  const agentId = await agentWithSet(t);
  const forMember = await offeredToolsOf(t.context.t.db.pool, agentId, MEMBER.id);
  t.deepEqual([...forMember.keys()], ['web_search', 'send_email']);
  t.true(forMember.get('send_email')?.requiresApproval);
});
