import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { as } from './support.ts';

const test = withTestApp(anyTest);

type Entry = { toolName: string; providerKey: string; description: string };

test('the catalog lists the built-in providers web, knowledge, email and calendar', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const response = await member.get('/api/ai/tools/catalog').expect(200);
  const providers = new Set((response.body as Entry[]).map((entry) => entry.providerKey));
  t.deepEqual([...providers].sort(), ['calendar', 'email', 'knowledge', 'web']);
});

test('every catalog tool has a unique name, a provider and a description', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const entries = (await member.get('/api/ai/tools/catalog').expect(200)).body as Entry[];
  t.true(entries.length >= 4);
  t.is(new Set(entries.map((entry) => entry.toolName)).size, entries.length);
  for (const entry of entries) {
    t.deepEqual(Object.keys(entry).sort(), ['description', 'providerKey', 'toolName']);
    t.true(entry.toolName.length > 0 && entry.description.length > 10, entry.toolName);
  }
});

test('every catalog tool is accepted by PUT with its own provider', async (t) => {
  const owner = await as(t.context.t, 'owner@demo.test');
  const entries = (await owner.get('/api/ai/tools/catalog').expect(200)).body as Entry[];
  const created = await owner.post('/api/ai/agents', { name: 'All tools' }).expect(201);
  const tools = entries.map((entry) => ({ toolName: entry.toolName, providerKey: entry.providerKey, permissionStatus: 'always_allow' }));
  const response = await owner.put(`/api/ai/agents/${created.body.id}/tools`, { tools }).expect(200);
  t.is(response.body.toolCount, entries.length);
});
