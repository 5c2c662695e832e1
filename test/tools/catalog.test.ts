import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { as } from './support.ts';

const test = withTestApp(anyTest);

type Entry = {
  toolName: string;
  providerKey: string;
  description: string;
  suggestedPermission: string;
  available: boolean;
  unavailableReason: string | null;
};

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
    t.deepEqual(Object.keys(entry).sort(), [
      'available',
      'description',
      'providerKey',
      'suggestedPermission',
      'toolName',
      'unavailableReason',
    ]);
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

test('the catalog says which tools this deployment runs, and why the others do not', async (t) => {
  const member = await as(t.context.t, 'member@demo.test');
  const entries = (await member.get('/api/ai/tools/catalog').expect(200)).body as Entry[];
  const state = Object.fromEntries(entries.map((entry) => [entry.toolName, [entry.available, entry.unavailableReason]]));
  // The tests' configuration: NODE_ENV=test, no WEB_SEARCH_URL, no SMTP_URL, no deployment executors.
  t.deepEqual(state, {
    web_search: [false, 'WEB_SEARCH_URL is not set'],
    fetch_url: [true, null],
    search_knowledge_base: [true, null],
    list_documents: [true, null],
    send_email: [false, 'SMTP_URL is not set'],
    search_inbox: [false, 'this deployment registered no executor for search_inbox (docs/agents-and-tools.md)'],
    list_events: [false, 'this deployment registered no executor for list_events (docs/agents-and-tools.md)'],
    create_event: [false, 'this deployment registered no executor for create_event (docs/agents-and-tools.md)'],
  });
  t.is(entries.find((entry) => entry.toolName === 'send_email')!.suggestedPermission, 'needs_approval');
});
