import anyTest from 'ava';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { TOOLS_NOTE } from '../../app/chat/turn.ts';
import { bearer, chatConfig, provider, sendChat, serve, userMessage, type T } from '../chat/support.ts';

const test = withTestApp(anyTest);

const INSTRUCTIONS = [
  'You are Acme Billing Helper.',
  'Answer only questions about invoices; politely refuse anything else.',
  '  Keep the exact spacing, "quotes", <tags> and émojis 🧾 of this text.',
].join('\n');

async function owner(t: T) {
  const auth = await bearer(t);
  const http = () => t.context.t.http();
  return {
    post: (body: object) => http().post('/api/ai/agents').set('authorization', auth).send(body),
    patch: (id: string, body: object) => http().patch(`/api/ai/agents/${id}`).set('authorization', auth).send(body),
    get: (path: string) => http().get(path).set('authorization', auth),
    auth,
  };
}

test('an agent is created with instructions, temperature and an output limit, and reads them back in GET and the list', async (t) => {
  const as = await owner(t);
  const created = await as.post({ name: 'Billing', instructions: INSTRUCTIONS, temperature: 0.3, maxOutputTokens: 800 }).expect(201);
  t.like(created.body, { instructions: INSTRUCTIONS, temperature: 0.3, maxOutputTokens: 800, modelId: null });
  t.deepEqual((await as.get(`/api/ai/agents/${created.body.id}`).expect(200)).body, created.body);
  const listed = (await as.get('/api/ai/agents').expect(200)).body.agents.find((agent: { id: string }) => agent.id === created.body.id);
  t.deepEqual(listed, created.body);
});

test('an agent created without them has empty instructions and null settings', async (t) => {
  const as = await owner(t);
  const created = await as.post({ name: 'Bare' }).expect(201);
  t.like(created.body, { instructions: '', temperature: null, maxOutputTokens: null });
});

test('PATCH changes instructions and settings one at a time, and null returns a setting to the provider default', async (t) => {
  const as = await owner(t);
  const { body: agent } = await as.post({ name: 'Patchable', temperature: 1.2, maxOutputTokens: 100 }).expect(201);
  const instructed = await as.patch(agent.id, { instructions: 'Be brief.' }).expect(200);
  t.like(instructed.body, { instructions: 'Be brief.', temperature: 1.2, maxOutputTokens: 100 });
  const cleared = await as.patch(agent.id, { temperature: null, maxOutputTokens: null, modelId: 'openai/gpt-4o' }).expect(200);
  t.like(cleared.body, { instructions: 'Be brief.', temperature: null, maxOutputTokens: null, modelId: 'openai/gpt-4o' });
  t.like((await as.get(`/api/ai/agents/${agent.id}`).expect(200)).body, { instructions: 'Be brief.', temperature: null });
});

test('out-of-range settings and over-long instructions are 400s at their field and change nothing', async (t) => {
  const as = await owner(t);
  const { body: agent } = await as.post({ name: 'Bounded' }).expect(201);
  const cases: [object, string][] = [
    [{ temperature: 2.01 }, 'temperature'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ temperature: '1' }, 'temperature'],
    [{ maxOutputTokens: 0 }, 'maxOutputTokens'],
    [{ maxOutputTokens: 128_001 }, 'maxOutputTokens'],
    [{ maxOutputTokens: 1.5 }, 'maxOutputTokens'],
    [{ instructions: 'x'.repeat(32_001) }, 'instructions'],
    [{ instructions: null }, 'instructions'],
  ];
  for (const [body, field] of cases) {
    const patched = await as.patch(agent.id, body).expect(400);
    t.deepEqual(patched.body.errors[0].path, [field], JSON.stringify(body).slice(0, 40));
    const created = await as.post({ name: 'Never', ...body }).expect(400);
    t.deepEqual(created.body.errors[0].path, [field]);
  }
  t.like((await as.get(`/api/ai/agents/${agent.id}`).expect(200)).body, { instructions: '', temperature: null, maxOutputTokens: null });
  await as.patch(agent.id, { instructions: 'y'.repeat(32_000), temperature: 2, maxOutputTokens: 128_000 }).expect(200);
});

test('the provider receives the instructions verbatim as the system message, and the temperature and output limit on every call', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'Invoice 42 is paid.' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const as = await owner(t);
  const { body: agent } = await as
    .post({ name: 'Billing', instructions: INSTRUCTIONS, temperature: 0.25, maxOutputTokens: 321 })
    .expect(201);
  await sendChat(base, as.auth, 'definition-1', [userMessage('Is invoice 42 paid?')], { agent: agent.id });
  const sent = peer.requests.at(-1)!.body;
  t.deepEqual(sent.messages[0], { role: 'system', content: INSTRUCTIONS });
  t.is(sent.temperature, 0.25);
  t.is(sent.max_tokens, 321);

  await as.patch(agent.id, { temperature: null, maxOutputTokens: null }).expect(200);
  await sendChat(base, as.auth, 'definition-2', [userMessage('And invoice 43?')], { agent: agent.id });
  const unset = peer.requests.at(-1)!.body;
  t.false('temperature' in unset);
  t.false('max_tokens' in unset);
  t.false('max_completion_tokens' in unset);
});

test('with tools offered, the system message is the instructions followed only by the short note on tools and approvals', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'ok' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const as = await owner(t);
  const { body: agent } = await as.post({ name: 'Fetcher', instructions: INSTRUCTIONS }).expect(201);
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent.id}/tools`)
    .set('authorization', as.auth)
    .send({ tools: [{ toolName: 'fetch_url', permissionStatus: 'always_allow', providerKey: 'web' }] })
    .expect(200);
  await sendChat(base, as.auth, 'definition-tools', [userMessage('Read example.com')], { agent: agent.id });
  t.deepEqual(peer.requests.at(-1)!.body.messages[0], { role: 'system', content: `${INSTRUCTIONS}\n\n${TOOLS_NOTE}` });
});

test('the demo agents ship with instructions: the support assistant answers from its knowledge base and says when it does not know; the research agent cites sources', async (t) => {
  const as = await owner(t);
  const support = (await as.get(`/api/ai/agents/${AGENTS.support.id}`).expect(200)).body;
  t.regex(support.instructions, /search_knowledge_base/);
  t.regex(support.instructions, /do not know/);
  const research = (await as.get(`/api/ai/agents/${AGENTS.research.id}`).expect(200)).body;
  t.regex(research.instructions, /web_search/);
  t.regex(research.instructions, /[Cc]ite your sources/);
});
