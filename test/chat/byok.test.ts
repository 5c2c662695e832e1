import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest } from '../helpers/openai-peer.ts';
import { agentId, bearer, chatConfig, provider, sendChat, serve, textOf, userMessage } from './support.ts';

// Development mode: a BYOK baseUrl on 127.0.0.1 passes the outbound URL policy.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const ORG_KEY = 'sk-organization-own-key-9876';

test.serial(
  "with the organization's own key the chat uses it at its baseUrl and records source byok; the key is never answered",
  async (t) => {
    const platform = await provider(t, () => ({ kind: 'text', text: 'platform' }));
    const own = await provider(t, () => ({ kind: 'text', text: 'own provider', usage: { prompt: 30, completion: 3 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: platform.url }));
    const auth = await bearer(t);
    const http = t.context.t.http;

    t.deepEqual((await http().get('/api/ai/provider-key').set('authorization', auth).expect(200)).body, {
      configured: false,
      baseUrl: null,
      keyLastFour: null,
    });
    await http().put('/api/ai/provider-key').set('authorization', auth).send({ apiKey: ORG_KEY, baseUrl: own.url }).expect(204);
    const status = await http().get('/api/ai/provider-key').set('authorization', auth).expect(200);
    t.deepEqual(status.body, { configured: true, baseUrl: own.url, keyLastFour: '9876' });
    t.notRegex(JSON.stringify(status.body), new RegExp(ORG_KEY));
    const stored = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ c: z.instanceof(Buffer) }))`
    SELECT ciphertext AS c FROM organization_provider_keys LIMIT 1`);
    t.false(stored.toString('latin1').includes(ORG_KEY));

    const { message } = await sendChat(base, auth, 'byok', [userMessage('hello')]);
    t.is(textOf(message), 'own provider');
    t.is(own.requests[0]!.headers.authorization, `Bearer ${ORG_KEY}`);
    t.is(platform.requests.length, 0);
    const sources = await t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ source: z.string() }))`
    SELECT source FROM usage_events WHERE agent_id = ${agentId} AND user_id IS NOT NULL AND input_tokens = 30`);
    t.deepEqual(sources, ['byok']);
    t.notRegex(t.context.t.logs.text(), new RegExp(ORG_KEY));

    await http().delete('/api/ai/provider-key').set('authorization', auth).expect(204);
    t.like((await http().get('/api/ai/provider-key').set('authorization', auth).expect(200)).body, { configured: false });
    await sendChat(base, auth, 'byok-after', [userMessage('hello')]);
    t.is(platform.requests.length, 1);
  },
);

test.serial('a baseUrl the outbound URL policy refuses is 400, and a member cannot set a key', async (t) => {
  const auth = await bearer(t);
  const refused = await t.context.t
    .http()
    .put('/api/ai/provider-key')
    .set('authorization', auth)
    .send({ apiKey: ORG_KEY, baseUrl: 'http://169.254.169.254/v1' })
    .expect(400);
  t.deepEqual(refused.body.errors[0].path, ['baseUrl']);
  const member = await bearer(t, 'member@demo.test');
  await t.context.t.http().put('/api/ai/provider-key').set('authorization', member).send({ apiKey: ORG_KEY }).expect(403);
});

test.serial(
  'the outbound URL policy applies to every provider request of a turn, each turn with its own, beside another turn on the same model',
  async (t) => {
    const lastText = (request: ChatRequest) => JSON.stringify(request.messages.at(-1)?.content);
    const own = await provider(t, (request) => ({ kind: 'text', text: `answer to ${lastText(request)}` }));
    const auth = await bearer(t);
    await t.context.t.http().put('/api/ai/provider-key').set('authorization', auth).send({ apiKey: ORG_KEY, baseUrl: own.url }).expect(204);
    // The same key, baseUrl and model in both apps: the turns share one cached provider model.
    const allowing = await serve(t, chatConfig());
    const refusing = await serve(t, chatConfig({}, { nodeEnv: 'test' }));

    const [refused, allowed] = await Promise.all([
      sendChat(refusing, auth, 'policy-refuses', [userMessage('from the refusing app')]),
      sendChat(allowing, auth, 'policy-allows', [userMessage('from the allowing app')]),
    ]);
    t.deepEqual(
      refused.chunks.filter((chunk) => chunk.type === 'error'),
      [{ type: 'error', errorText: 'The model provider could not be reached.' }],
    );
    t.is(textOf(allowed.message), 'answer to "from the allowing app"');
    t.true(own.requests.length > 0);
    t.deepEqual(
      [...own.requests, ...own.titleRequests].filter((request) => JSON.stringify(request.body).includes('from the refusing app')),
      [],
    );
  },
);
