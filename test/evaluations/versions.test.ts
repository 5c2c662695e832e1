import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, OTHER_AGENT, OWNER, SUPPORT, insertMcpServer } from '../tools/support.ts';
import { agentPath, user } from './support.ts';

const test = withTestApp(anyTest);

type Version = { version: number; createdBy: string | null; note: string | null; definition: Record<string, unknown> };

test('a new agent has version 1 with its whole definition, made by its creator', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Versioned', instructions: 'Be brief.' }).expect(201);
  const listed = await owner.get(`${agentPath(created.body.id)}/versions`).expect(200);
  t.is(listed.body.hasMore, false);
  t.is(listed.body.versions.length, 1);
  t.like(listed.body.versions[0], { version: 1, createdBy: OWNER.id, note: null });
  t.deepEqual(listed.body.versions[0].definition, {
    name: 'Versioned',
    description: '',
    modelId: null,
    instructions: 'Be brief.',
    temperature: null,
    maxOutputTokens: null,
    guardrails: { blockedTerms: [], moderationModel: null, refusal: "Sorry, I can't help with that." },
    tools: [],
  });
});

test('each PATCH and tool set change is a new version with its note; a PATCH that changes nothing is none', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Changing' }).expect(201);
  await owner.patch(agentPath(agent.id), { instructions: 'Answer in French.', versionNote: 'French market' }).expect(200);
  await owner.patch(agentPath(agent.id), { instructions: 'Answer in French.' }).expect(200);
  await owner
    .put(`${agentPath(agent.id)}/tools`, {
      tools: [{ toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' }],
    })
    .expect(200);
  const { body } = await owner.get(`${agentPath(agent.id)}/versions`).expect(200);
  const versions = body.versions as Version[];
  t.deepEqual(
    versions.map((version) => [version.version, version.note]),
    [
      [3, null],
      [2, 'French market'],
      [1, null],
    ],
  );
  t.is(versions[1]!.definition.instructions, 'Answer in French.');
  t.deepEqual(versions[0]!.definition.tools, [{ toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' }]);
});

test('a restore brings back the fields and tools of a version and is recorded as a new version equal to it', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Restorable', temperature: 0.2 }).expect(201);
  const server = await insertMcpServer(t.context.t.db.pool, agent.id);
  await owner
    .put(`${agentPath(agent.id)}/tools`, {
      tools: [
        { toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' },
        { toolName: 'lookup', providerKey: `mcp:${server}`, permissionStatus: 'needs_approval' },
      ],
    })
    .expect(200);
  await owner.patch(agentPath(agent.id), { name: 'Renamed', temperature: 1.5, guardrails: { blockedTerms: ['refund'] } }).expect(200);
  await owner.put(`${agentPath(agent.id)}/tools`, { tools: [] }).expect(200);
  const restored = await owner.post(`${agentPath(agent.id)}/versions/2/restore`, {}).expect(200);
  t.like(restored.body, { name: 'Restorable', temperature: 0.2, guardrails: { blockedTerms: [] } });
  const tools = await owner.get(`${agentPath(agent.id)}/tools`).expect(200);
  t.deepEqual(
    tools.body.tools.map((tool: { toolName: string }) => tool.toolName),
    ['list_documents', 'lookup'],
  );
  const { body } = await owner.get(`${agentPath(agent.id)}/versions?limit=2`).expect(200);
  const [latest, before] = body.versions as Version[];
  t.is(body.hasMore, true);
  t.like(latest, { version: 5, note: 'Restored version 2' });
  const second = (await owner.get(`${agentPath(agent.id)}/versions?before=3&limit=1`).expect(200)).body.versions[0] as Version;
  t.deepEqual(latest!.definition, second.definition);
  t.is(before!.version, 4);
});

test('a restore of a missing version is a 404 AI.AGENT_VERSION_NOT_FOUND and changes nothing', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Stable' }).expect(201);
  const missing = await owner.post(`${agentPath(agent.id)}/versions/9/restore`, {}).expect(404);
  t.is(missing.body.errorCode, 'AI.AGENT_VERSION_NOT_FOUND');
  const { body } = await owner.get(`${agentPath(agent.id)}/versions`).expect(200);
  t.is(body.versions.length, 1);
});

test('an archived agent keeps its versions readable to its organization, and only to it', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Retired' }).expect(201);
  await owner.patch(agentPath(agent.id), { description: 'old' }).expect(200);
  await owner.delete(agentPath(agent.id)).expect(204);
  const { body } = await owner.get(`${agentPath(agent.id)}/versions`).expect(200);
  t.deepEqual(
    body.versions.map((version: Version) => version.version),
    [2, 1],
  );
  const other = await user(t.context.t, 'owner@other.test');
  const foreign = await other.get(`${agentPath(agent.id)}/versions`).expect(404);
  t.deepEqual(foreign.body, AGENT_NOT_FOUND);
  const notOurs = await owner.get(`${agentPath(OTHER_AGENT)}/versions`).expect(404);
  t.deepEqual(notOurs.body, AGENT_NOT_FOUND);
});

test('a PATCH that fails leaves no version behind', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const before = (await owner.get(`${agentPath(SUPPORT)}/versions`).expect(200)).body.versions.length;
  await owner.patch(agentPath(SUPPORT), { temperature: 5 }).expect(400);
  const after = (await owner.get(`${agentPath(SUPPORT)}/versions`).expect(200)).body.versions.length;
  t.is(after, before);
});
