import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, type Ctx, OTHER_AGENT, OWNER, overridesPath, RESEARCH, SUPPORT } from './support.ts';

const test = withTestApp(anyTest);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const countOverrides = (t: Ctx, userId: string, agentId: string, toolName: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM tool_overrides WHERE user_id = ${userId} AND agent_id = ${agentId} AND tool_name = ${toolName}`);

test('a new override is answered 200 (not 201) with the toolName and its createdAt', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.post(overridesPath(SUPPORT), { toolName: 'send_email' });
  t.is(response.status, 200);
  t.is(response.body.toolName, 'send_email');
  t.regex(response.body.createdAt, ISO);
  t.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'toolName']);
});

test('a repeated POST answers 200 with the stored row and creates no duplicate', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  await owner.post(overridesPath(SUPPORT), { toolName: 'create_event' }).expect(200);
  // Backdated by an hour: a second insert (or a refreshed timestamp) could not answer this createdAt.
  const createdAt = await t.context.t.db.pool.oneFirst(sql.type(z.object({ createdAt: z.string() }))`
    UPDATE tool_overrides SET created_at = created_at - interval '1 hour'
    WHERE user_id = ${OWNER.id} AND agent_id = ${SUPPORT} AND tool_name = 'create_event'
    RETURNING to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`);
  const second = await owner.post(overridesPath(SUPPORT), { toolName: 'create_event' }).expect(200);
  t.deepEqual(second.body, { toolName: 'create_event', createdAt });
  t.is(await countOverrides(t, OWNER.id, SUPPORT, 'create_event'), 1);
});

test('20 concurrent identical POSTs give twenty 200s, one row and one createdAt', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const responses = await Promise.all(
    Array.from({ length: 20 }, () => owner.post(overridesPath(RESEARCH), { toolName: 'concurrent_tool' })),
  );
  t.deepEqual(
    responses.map((r) => r.status),
    Array(20).fill(200),
  );
  t.is(new Set(responses.map((r) => r.body.createdAt)).size, 1);
  t.is(await countOverrides(t, OWNER.id, RESEARCH, 'concurrent_tool'), 1);
  const listed = (await owner.get(overridesPath(RESEARCH)).expect(200)).body.overrides;
  t.deepEqual(
    listed.filter((o: { toolName: string }) => o.toolName === 'concurrent_tool'),
    [responses[0]?.body],
  );
});

test('GET lists only the caller own overrides', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const member = await as(t.context.t, 'member@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Shared' }).expect(201);
  const mine = await owner.post(overridesPath(created.body.id), { toolName: 'web_search' }).expect(200);
  const theirs = await member.post(overridesPath(created.body.id), { toolName: 'send_email' }).expect(200);
  t.deepEqual((await owner.get(overridesPath(created.body.id)).expect(200)).body, { overrides: [mine.body] });
  t.deepEqual((await member.get(overridesPath(created.body.id)).expect(200)).body, { overrides: [theirs.body] });
});

test('GET without overrides answers { overrides: [] }', async (t) => {
  // A fresh agent: tests of this file run concurrently and others add overrides to the fixtures.
  const other = await as(t.context.t, 'owner@other.test');
  const agent = await other.post('/api/ai/agents', { name: 'No overrides yet' }).expect(201);
  t.deepEqual((await other.get(overridesPath(agent.body.id)).expect(200)).body, { overrides: [] });
});

test('DELETE answers 204 with no body and the override is gone; a second DELETE is 204 too', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const created = await (await as(t.context.t, 'owner@demo.test')).post('/api/ai/agents', { name: 'Deleting' }).expect(201);
  await member.post(overridesPath(created.body.id), { toolName: 'fetch_url' }).expect(200);
  const first = await member.delete(`${overridesPath(created.body.id)}/fetch_url`);
  t.is(first.status, 204);
  t.is(first.text, '');
  t.deepEqual((await member.get(overridesPath(created.body.id)).expect(200)).body, { overrides: [] });
  const again = await member.delete(`${overridesPath(created.body.id)}/fetch_url`);
  t.is(again.status, 204);
});

test('DELETE of an override that never existed is 204, also for odd tool names; a NUL in the name is a 400', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const statuses = await Promise.all(
    ['never_there', encodeURIComponent('with space/and slash'), '%FF', encodeURIComponent('x'.repeat(300)), '%00'].map(
      async (name) => (await member.delete(`${overridesPath(SUPPORT)}/${name}`)).status,
    ),
  );
  // NUL is refused in every request value (ADR 0060): no override can hold it.
  t.deepEqual(statuses, [204, 204, 204, 204, 400]);
});

test('a tool name with slashes and spaces round-trips through POST, GET and DELETE', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Odd names' }).expect(201);
  const toolName = 'github/create issue ñ';
  await owner.post(overridesPath(created.body.id), { toolName }).expect(200);
  await owner.delete(`${overridesPath(created.body.id)}/${encodeURIComponent(toolName)}`).expect(204);
  t.deepEqual((await owner.get(overridesPath(created.body.id)).expect(200)).body, { overrides: [] });
});

test("another agency's agent is a 404 AI.AGENT_NOT_FOUND for POST and GET and nothing is stored", async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const post = await owner.post(overridesPath(OTHER_AGENT), { toolName: 'web_search' }).expect(404);
  const get = await owner.get(overridesPath(OTHER_AGENT)).expect(404);
  t.deepEqual(post.body, AGENT_NOT_FOUND);
  t.deepEqual(get.body, AGENT_NOT_FOUND);
  t.is(await countOverrides(t, OWNER.id, OTHER_AGENT, 'web_search'), 0);
  const missing = await owner.post(overridesPath('01900000-0000-7000-8000-00000000ffff'), { toolName: 'x' }).expect(404);
  t.deepEqual(missing.body, AGENT_NOT_FOUND);
});

test("DELETE on another agency's agent answers 204 and changes nothing of that agency", async (t) => {
  const other = await as(t.context.t, 'owner@other.test');
  const kept = await other.post(overridesPath(OTHER_AGENT), { toolName: 'kept_tool' }).expect(200);
  // A row for the demo owner on the other agency's agent can only come from outside the API.
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO tool_overrides (user_id, agent_id, tool_name) VALUES (${OWNER.id}, ${OTHER_AGENT}, 'kept_tool')`);
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.delete(`${overridesPath(OTHER_AGENT)}/kept_tool`);
  t.is(response.status, 204);
  t.is(await countOverrides(t, OWNER.id, OTHER_AGENT, 'kept_tool'), 1);
  t.deepEqual((await other.get(overridesPath(OTHER_AGENT)).expect(200)).body.overrides, [kept.body]);
});

test('toolName must be 1 to 200 characters', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Lengths' }).expect(201);
  await owner.post(overridesPath(created.body.id), { toolName: 'x'.repeat(200) }).expect(200);
  const long = await owner.post(overridesPath(created.body.id), { toolName: 'x'.repeat(201) }).expect(400);
  t.deepEqual(
    long.body.errors.map((e: { path: string[] }) => e.path),
    [['toolName']],
  );
  const empty = await owner.post(overridesPath(created.body.id), { toolName: '' }).expect(400);
  t.deepEqual(
    empty.body.errors.map((e: { path: string[] }) => e.path),
    [['toolName']],
  );
  const missing = await owner.post(overridesPath(created.body.id), {}).expect(400);
  t.deepEqual(missing.body.errors, [{ path: ['toolName'], message: 'Required' }]);
  const listed = (await owner.get(overridesPath(created.body.id)).expect(200)).body.overrides;
  t.deepEqual(
    listed.map((o: { toolName: string }) => o.toolName),
    ['x'.repeat(200)],
  );
});

test('override routes answer 401 without a token and 400 for a non-UUID agentId', async (t) => {
  const http = t.context.t.http;
  const statuses = [
    (await http().post(overridesPath(SUPPORT)).send({ toolName: 'x' })).status,
    (await http().get(overridesPath(SUPPORT))).status,
    (await http().delete(`${overridesPath(SUPPORT)}/x`)).status,
  ];
  t.deepEqual(statuses, [401, 401, 401]);
  const owner = await as(t.context.t, 'owner@demo.test');
  const bad = await owner.post(overridesPath('nope'), { toolName: 'x' }).expect(400);
  t.deepEqual(bad.body.errors, [{ path: ['params', 'agentId'], message: 'must be a UUID v7' }]);
});
