import anyTest from 'ava';
import fc from 'fast-check';
import type { Test } from 'supertest';
import { BUILTIN_TOOLS } from '../../app/tools/builtins.ts';
import { withTestApp } from '../helpers/app.ts';
import { as, insertMcpServer, OTHER_AGENT, overridesPath, toolsPath } from './support.ts';

const test = withTestApp(anyTest);

const RUNS = 100;
const ALLOWED = new Set([200, 204, 400, 401, 404]);
const anyString = fc.string({ unit: 'binary', maxLength: 220 });

/** Elements that are sometimes valid, sometimes wrong in one or more ways. */
const toolElement = (serverId: string) =>
  fc.record(
    {
      toolName: fc.oneof(fc.constantFrom(...BUILTIN_TOOLS.map((tool) => tool.toolName)), anyString, fc.jsonValue()),
      permissionStatus: fc.oneof(fc.constantFrom('always_allow', 'needs_approval', 'blocked'), anyString, fc.jsonValue()),
      providerKey: fc.oneof(
        fc.constantFrom('web', 'knowledge', 'email', 'calendar', `mcp:${serverId}`, 'mcp:01900000-0000-7000-8000-00000000beef', 'mcp:'),
        anyString,
        fc.jsonValue(),
      ),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

/** A valid element: a catalog tool with its own provider, or any name of the agent's MCP server. */
const validElement = (serverId: string) =>
  fc.oneof(
    fc.constantFrom(...BUILTIN_TOOLS).chain((tool) =>
      fc.record({
        toolName: fc.constant(tool.toolName),
        permissionStatus: fc.constantFrom('always_allow', 'needs_approval', 'blocked'),
        providerKey: fc.constant(tool.providerKey),
      }),
    ),
    fc.record({
      toolName: fc.string({ minLength: 1, maxLength: 40 }),
      permissionStatus: fc.constantFrom('always_allow', 'needs_approval', 'blocked'),
      providerKey: fc.constant(`mcp:${serverId}`),
    }),
  );

const putBody = (serverId: string) =>
  fc.oneof(
    fc.jsonValue(),
    fc.record({ tools: fc.uniqueArray(validElement(serverId), { selector: (tool) => tool.toolName, maxLength: 5 }) }),
    fc.record({ tools: fc.array(toolElement(serverId), { maxLength: 6 }) }),
    fc.record({ tools: fc.array(toolElement(serverId), { maxLength: 4 }), enabledTools: fc.array(fc.string()) }, { requiredKeys: [] }),
  );

const send = (request: Test, body: unknown, token: string | undefined) => {
  if (token !== undefined) request.set('authorization', `Bearer ${token}`);
  return request.set('content-type', 'application/json').send(JSON.stringify(body) ?? '');
};

test.serial('arbitrary PUT bodies never get a 500 and a rejected PUT leaves the previous set unchanged', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = (await owner.post('/api/ai/agents', { name: 'Fuzzed' }).expect(201)).body.id as string;
  const serverId = await insertMcpServer(t.context.t.db.pool, agentId);
  let current: unknown[] = [];
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      putBody(serverId),
      fc.constantFrom(agentId, agentId, agentId, OTHER_AGENT, '01900000-0000-7000-8000-00000000ffff', 'not-a-uuid'),
      fc.constantFrom<string | undefined>(owner.token, owner.token, owner.token, undefined, 'garbage'),
      async (body, target, token) => {
        const response = await send(t.context.t.http().put(toolsPath(target)), body, token);
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        if (!ALLOWED.has(response.status)) return false;
        const after = (await owner.get(toolsPath(agentId)).expect(200)).body.tools as unknown[];
        if (target === agentId && response.status === 200) {
          const given = (body as { tools: Record<string, unknown>[] }).tools;
          current = given.map(({ toolName, permissionStatus, providerKey }) => ({ toolName, permissionStatus, providerKey }));
          return response.body.toolCount === given.length && JSON.stringify(after) === JSON.stringify(current);
        }
        return JSON.stringify(after) === JSON.stringify(current);
      },
    ),
    { numRuns: RUNS },
  );
  // The runs reached every kind of answer, successful replacements included.
  t.deepEqual([...seen.keys()].sort(), [200, 400, 401, 404]);
});

test.serial('arbitrary override POST bodies never get a 500 and a 200 stores exactly the given name', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = (await owner.post('/api/ai/agents', { name: 'Fuzzed overrides' }).expect(201)).body.id as string;
  const stored = new Set<string>();
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.jsonValue(), fc.record({ toolName: fc.oneof(anyString, fc.jsonValue()), other: fc.jsonValue() }, { requiredKeys: [] })),
      fc.constantFrom(agentId, agentId, OTHER_AGENT, 'not-a-uuid'),
      fc.constantFrom<string | undefined>(owner.token, owner.token, undefined),
      async (body, target, token) => {
        const response = await send(t.context.t.http().post(overridesPath(target)), body, token);
        if (!ALLOWED.has(response.status) || response.status === 204) return false;
        if (response.status !== 200) return true;
        const toolName = (body as { toolName: string }).toolName;
        stored.add(toolName);
        return response.body.toolName === toolName && target === agentId;
      },
    ),
    { numRuns: RUNS },
  );
  const listed = (await owner.get(overridesPath(agentId)).expect(200)).body.overrides as { toolName: string }[];
  t.deepEqual(new Set(listed.map((o) => o.toolName)), stored);
});

test.serial('arbitrary tool names in DELETE answer 204 (400 with a NUL) and leave no override of that name', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const agentId = (await owner.post('/api/ai/agents', { name: 'Fuzzed deletes' }).expect(201)).body.id as string;
  let stored = 0;
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 250 }), async (toolName) => {
      const created = await owner.post(overridesPath(agentId), { toolName });
      if (created.status === 200) stored++;
      else if (created.status !== 400) return false;
      const response = await owner.delete(`${overridesPath(agentId)}/${encodeURIComponent(toolName)}`);
      const listed = (await owner.get(overridesPath(agentId)).expect(200)).body.overrides as unknown[];
      // NUL is refused in every request value (ADR 0060), so no override can hold one.
      return response.status === (toolName.includes('\u0000') ? 400 : 204) && listed.length === 0;
    }),
    // Three requests a run: fewer runs keep the file within seconds.
    { numRuns: RUNS / 2 },
  );
  t.true(stored > 0);
});
