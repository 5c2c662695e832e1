import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { AGENT_NOT_FOUND, as, OTHER_AGENT, RESEARCH, SUPPORT } from '../tools/support.ts';

const test = withTestApp(anyTest);

test('an owner creates an agent in their agency and gets it back with 201', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Sales Bot', description: 'Qualifies leads' }).expect(201);
  t.like(created.body, { name: 'Sales Bot', description: 'Qualifies leads' });
  t.regex(created.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.regex(created.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const fetched = await owner.get(`/api/ai/agents/${created.body.id}`).expect(200);
  t.deepEqual(fetched.body, created.body);
});

test('a created agent without description has an empty description', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const created = await owner.post('/api/ai/agents', { name: 'Plain' }).expect(201);
  t.is(created.body.description, '');
});

test('the agent list holds only the caller agency agents', async (t) => {
  const other = await as(t.context.t, 'owner@other.test');
  const response = await other.get('/api/ai/agents').expect(200);
  t.deepEqual(
    response.body.agents.map((agent: { id: string }) => agent.id),
    [OTHER_AGENT],
  );
  const owner = await as(t.context.t, 'owner@demo.test');
  const demo = await owner.get('/api/ai/agents').expect(200);
  const ids = demo.body.agents.map((agent: { id: string }) => agent.id);
  t.true(ids.includes(SUPPORT) && ids.includes(RESEARCH));
  t.false(ids.includes(OTHER_AGENT));
});

test('an agent of another agency is a 404 AI.AGENT_NOT_FOUND exactly like a missing one', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const foreign = await owner.get(`/api/ai/agents/${OTHER_AGENT}`).expect(404);
  const missing = await owner.get('/api/ai/agents/01900000-0000-7000-8000-00000000ffff').expect(404);
  t.deepEqual(foreign.body, AGENT_NOT_FOUND);
  t.deepEqual(missing.body, AGENT_NOT_FOUND);
});

test('a user without grants can neither create nor read agents', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const statuses = await Promise.all([
    member.post('/api/ai/agents', { name: 'Nope' }),
    member.get('/api/ai/agents'),
    member.get(`/api/ai/agents/${SUPPORT}`),
  ]);
  t.deepEqual(
    statuses.map((response) => response.status),
    [403, 403, 403],
  );
  const owner = await as(t.context.t, 'owner@demo.test');
  const names = (await owner.get('/api/ai/agents').expect(200)).body.agents.map((agent: { name: string }) => agent.name);
  t.false(names.includes('Nope'));
});

test('agent routes require a token', async (t) => {
  const list = await t.context.t.http().get('/api/ai/agents');
  const create = await t.context.t.http().post('/api/ai/agents').send({ name: 'x' });
  t.deepEqual([list.status, create.status], [401, 401]);
  t.deepEqual(create.body, { statusCode: 401, message: 'Invalid or missing access token' });
});

test('an invalid agent body is a 400 at the field and creates nothing', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const missing = await owner.post('/api/ai/agents', { description: 'x' }).expect(400);
  t.deepEqual(missing.body.errors, [{ path: ['name'], message: 'Required' }]);
  const blank = await owner.post('/api/ai/agents', { name: '   ' }).expect(400);
  t.deepEqual(
    blank.body.errors.map((e: { path: string[] }) => e.path),
    [['name']],
  );
  await owner.post('/api/ai/agents', { name: 'a'.repeat(201) }).expect(400);
  const extra = await owner.post('/api/ai/agents', { name: 'Rejected extra', extra: 1 }).expect(400);
  t.deepEqual(extra.body.errors, [{ path: ['extra'], message: 'Unrecognized key' }]);
  const names = (await owner.get('/api/ai/agents').expect(200)).body.agents.map((agent: { name: string }) => agent.name);
  t.false(names.includes('Rejected extra'));
  t.false(names.includes('a'.repeat(201)));
});

test('an agentId that is not a UUID is a 400 at params.agentId', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.get('/api/ai/agents/not-a-uuid').expect(400);
  t.deepEqual(response.body.errors, [{ path: ['params', 'agentId'], message: 'must be a UUID v7' }]);
});
