import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { as, OTHER_AGENT, SUPPORT, toolsPath } from './support.ts';

const test = withTestApp(anyTest);

const FORBIDDEN = { statusCode: 403, message: 'Forbidden' };
const blocked = { toolName: 'send_email', permissionStatus: 'blocked', providerKey: 'email' };
const allowed = { toolName: 'send_email', permissionStatus: 'always_allow', providerKey: 'email' };

test.serial('a member without update on ai.agent cannot replace tool permissions, and the set is unchanged', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.put(toolsPath(SUPPORT), { tools: [blocked] }).expect(200);
  const member = await as(t.context.t, 'member@demo.test');
  const response = await member.put(toolsPath(SUPPORT), { tools: [allowed] });
  t.is(response.status, 403);
  t.deepEqual(response.body, FORBIDDEN);
  t.deepEqual((await owner.get(toolsPath(SUPPORT)).expect(200)).body.tools, [blocked]);
});

test.serial('the policy is checked before the agent: a member learns nothing about ids of other agencies', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const otherAgency = await member.put(toolsPath(OTHER_AGENT), { tools: [] });
  const missing = await member.put(toolsPath('01900000-0000-7000-8000-00000000ffff'), { tools: [] });
  t.deepEqual([otherAgency.status, otherAgency.body], [403, FORBIDDEN]);
  t.deepEqual([missing.status, missing.body], [403, FORBIDDEN]);
});

test.serial('a member still reads the set and the offered tools and keeps their own approve-always overrides', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.put(toolsPath(SUPPORT), { tools: [{ ...blocked, permissionStatus: 'needs_approval' }] }).expect(200);
  const member = await as(t.context.t, 'member@demo.test');
  t.is((await member.get(toolsPath(SUPPORT))).status, 200);
  const override = await member.post(`/api/ai/agents/${SUPPORT}/tool-overrides`, { toolName: 'send_email' });
  t.is(override.status, 200);
  const effective = await member.get(`${toolsPath(SUPPORT)}/effective`).expect(200);
  t.deepEqual(
    effective.body.tools.map((tool: { toolName: string; requiresApproval: boolean }) => [tool.toolName, tool.requiresApproval]),
    [['send_email', false]],
  );
  t.is((await member.delete(`/api/ai/agents/${SUPPORT}/tool-overrides/send_email`)).status, 204);
});

test('the OpenAPI document declares the grant PUT tools needs, and none for reading them', async (t) => {
  const document = (await t.context.t.http().get('/api/openapi.json').expect(200)).body;
  const put = document.paths['/api/ai/agents/{agentId}/tools'].put;
  t.regex(put.responses['403'].description, /lacks `update` on `ai.agent`/);
  // Reading the set needs no grant: its 403 is only for a token that is not a staff user's.
  t.notRegex(document.paths['/api/ai/agents/{agentId}/tools'].get.responses['403'].description, /lacks/);
});
