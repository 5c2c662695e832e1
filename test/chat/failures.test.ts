import anyTest from 'ava';
import type { UIMessageChunk } from 'ai';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { Reply } from '../helpers/openai-peer.ts';
import { agentId, bearer, chatConfig, chatPath, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const KEY = 'sk-platform-secret-key-0001';

const errorText = (chunks: UIMessageChunk[]) => chunks.flatMap((chunk) => (chunk.type === 'error' ? [chunk.errorText] : [])).join(' ');

async function failingTurn(t: T, reply: Reply, ai: Parameters<typeof chatConfig>[0] = {}) {
  const peer = await provider(t, () => reply);
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, ...ai }));
  const result = await sendChat(base, await bearer(t), `fail-${reply.kind}`, [userMessage('hello')]);
  return { ...result, peer };
}

test.serial('a provider answering 401 ends the stream with an error chunk that names it and never carries the key', async (t) => {
  const { chunks } = await failingTurn(t, { kind: 'status', status: 401, body: JSON.stringify({ error: { message: `bad key ${KEY}` } }) });
  t.regex(errorText(chunks), /refused the API key \(HTTP 401\)/);
  t.notRegex(JSON.stringify(chunks), new RegExp(KEY));
  t.notRegex(t.context.t.logs.text(), new RegExp(KEY));
});

test.serial('an unreachable provider ends the stream with an error chunk', async (t) => {
  const base = await serve(t, chatConfig({ gatewayUrl: 'http://127.0.0.1:9/v1' }));
  const { chunks } = await sendChat(base, await bearer(t), 'unreachable', [userMessage('hello')]);
  t.regex(errorText(chunks), /could not be reached/);
});

test.serial('a provider that stops sending times out with an error chunk', async (t) => {
  const { chunks } = await failingTurn(t, { kind: 'hang-after-first-chunk' }, { providerTimeoutMs: 300 });
  t.regex(errorText(chunks), /did not answer in time/);
});

test.serial('a malformed provider stream ends with an error chunk', async (t) => {
  const { chunks } = await failingTurn(t, { kind: 'malformed' });
  t.true(chunks.some((chunk) => chunk.type === 'error'));
});

test.serial('a provider that streams without end is cut at the byte cap', async (t) => {
  // Endless text ends earlier, at the 1 MiB answer bound (test/chat/bounds.test.ts): chunks
  // without text are what only the response byte cap stops.
  const { chunks } = await failingTurn(t, { kind: 'endless-padding' });
  t.regex(errorText(chunks), /more data than allowed/);
});

test.serial(
  "a client that disconnects leaves the provider request running; the stop route aborts it (the provider's socket closes unfinished)",
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'hang-after-first-chunk' }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, providerTimeoutMs: 30_000 }));
    const auth = await bearer(t);
    const abort = new AbortController();
    const turn = sendChat(base, auth, 'disconnect', [userMessage('hello')], { abortSignal: abort.signal }).catch(() => undefined);
    while (peer.closes.length === 0) await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    await turn;
    // The turn still runs: the resume GET follows it (a round trip after the disconnect).
    const resumed = await fetch(`${base}${chatPath()}/disconnect/stream`, { headers: { authorization: auth } });
    t.is(resumed.status, 200);
    const resumedText = resumed.text();
    t.is(await Promise.race([peer.closes[0], Promise.resolve('open')]), 'open', 'a disconnect is not a stop');

    const stop = await fetch(`${base}${chatPath()}/disconnect/stop`, { method: 'POST', headers: { authorization: auth } });
    t.is(stop.status, 204);
    t.deepEqual(await peer.closes[0], { finished: false });
    t.regex(await resumedText, /"type":"finish"[\s\S]*data: \[DONE\]/);
  },
);

test.serial('without a provider key, development answers through the demo model, which says so and can call a tool', async (t) => {
  const base = await serve(t, chatConfig({ gatewayApiKey: undefined }));
  const auth = await bearer(t);
  const { message } = await sendChat(base, auth, 'demo', [userMessage('Hello there')]);
  t.regex(textOf(message), /built-in demo model/);
  t.regex(textOf(message), /Hello there/);
  const again = await sendChat(base, auth, 'demo-again', [userMessage('Hello there')]);
  t.is(textOf(again.message), textOf(message));
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agentId}/tools`)
    .set('authorization', auth)
    .send({ tools: [{ toolName: 'list_events', permissionStatus: 'needs_approval', providerKey: 'calendar' }] })
    .expect(200);
  const tool = await sendChat(base, auth, 'demo-tool', [userMessage('please use list_events')]);
  t.like(
    tool.message!.parts.find((part) => part.type === 'tool-list_events'),
    { state: 'approval-requested' },
  );
});

test.serial('in production without a key the chat answers 503 AI.PROVIDER_NOT_CONFIGURED and the rest of the API works', async (t) => {
  const base = await serve(t, chatConfig({ gatewayApiKey: undefined }, { nodeEnv: 'production' }));
  const auth = await bearer(t);
  const response = await fetch(`${base}${chatPath()}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'prod', messages: [userMessage('hi')] }),
  });
  t.is(response.status, 503);
  t.like(await response.json(), { statusCode: 503, errorCode: 'AI.PROVIDER_NOT_CONFIGURED' });
  t.is((await fetch(`${base}/api/ai/agents`, { headers: { authorization: auth } })).status, 200);
});

test.serial('a member without read on ai.agent is 403 and another agency is 404', async (t) => {
  const member = await bearer(t, 'member@demo.test');
  const forbidden = await t.context.t
    .http()
    .post(chatPath())
    .set('authorization', member)
    .send({ id: 'x', messages: [userMessage('hi')] });
  t.is(forbidden.status, 403);
  const other = await bearer(t, 'owner@other.test');
  const missing = await t.context.t
    .http()
    .post(chatPath())
    .set('authorization', other)
    .send({ id: 'x', messages: [userMessage('hi')] });
  t.is(missing.status, 404);
  t.is(missing.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const list = await t.context.t.http().get(`/api/ai/agents/${AGENTS.support.id}/conversations`).set('authorization', other);
  t.is(list.status, 404);
});

test.serial("another user's conversation is 404 and DELETE removes the caller's own", async (t) => {
  const base = await serve(t, chatConfig({ gatewayApiKey: undefined }));
  const auth = await bearer(t);
  await sendChat(base, auth, 'private', [userMessage('secret plans')]);
  const other = await bearer(t, 'owner@other.test');
  const theirs = await t.context.t.http().get(`/api/ai/agents/${AGENTS.otherHelper.id}/conversations/private`).set('authorization', other);
  t.is(theirs.status, 404);
  t.is(theirs.body.errorCode, 'AI.CONVERSATION_NOT_FOUND');
  await t.context.t.http().delete(`/api/ai/agents/${agentId}/conversations/private`).set('authorization', auth).expect(204);
  await t.context.t.http().get(`/api/ai/agents/${agentId}/conversations/private`).set('authorization', auth).expect(404);
});

test.serial('bad bodies are 400 before any stream starts', async (t) => {
  const auth = await bearer(t);
  const bodies = [
    {},
    { id: 'bad id!', messages: [userMessage('hi')] },
    { id: 'x', messages: [] },
    { id: 'x', messages: [{ id: 'a', role: 'user', parts: [] }] },
    { id: 'x', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] },
    { id: 'x', messages: [{ id: 'a', role: 'system', parts: [{ type: 'text', text: 'hi' }] }] },
    { id: 'x', messages: 'nope' },
    {
      id: 'x',
      messages: [
        {
          id: 'a',
          role: 'assistant',
          parts: [{ type: 'tool-x', state: 'approval-responded', approval: { id: 'not-a-uuid', approved: true } }],
        },
      ],
    },
  ];
  for (const body of bodies) {
    const response = await t.context.t.http().post(chatPath()).set('authorization', auth).send(body);
    t.is(response.status, 400, JSON.stringify(body));
  }
});
