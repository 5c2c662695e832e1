import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { bearer, chatConfig, chatPath, provider, serve, userMessage } from './support.ts';
import { hasText, parseStream, readUntil, storedMessages, storedText, textOfChunks, turnOutcomes, until } from './turn-support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });

const AGENT_NOT_FOUND = {
  statusCode: 404,
  errorCode: 'AI.AGENT_NOT_FOUND',
  message: { en: 'Agent not found', es: 'Agente no encontrado' },
};

test('a turn running when its agent is archived finishes and is saved; resume, stop and new messages are 404', async (t) => {
  const text = 'An answer that outlives its agent.';
  const peer = await provider(t, () => ({ kind: 'drip', text, everyMs: 20 }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  const json = { authorization: auth, 'content-type': 'application/json' };
  const created = await fetch(`${base}/api/ai/agents`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Short-lived' }) });
  const agent = ((await created.json()) as { id: string }).id;
  const send = (chatId: string, message: string) =>
    fetch(`${base}${chatPath(agent)}`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ id: chatId, messages: [userMessage(message)] }),
    });

  const { whole } = await readUntil(await send('outlives', 'hello'), hasText('An'));
  t.is((await fetch(`${base}/api/ai/agents/${agent}`, { method: 'DELETE', headers: { authorization: auth } })).status, 204);

  for (const [method, path] of [
    ['GET', `${chatPath(agent)}/outlives/stream`],
    ['POST', `${chatPath(agent)}/outlives/stop`],
    ['GET', `/api/ai/agents/${agent}/conversations`],
  ] as const) {
    const response = await fetch(`${base}${path}`, { method, headers: { authorization: auth } });
    t.is(response.status, 404, `${method} ${path}`);
    t.deepEqual(await response.json(), AGENT_NOT_FOUND);
  }
  const next = await send('after-archive', 'are you there?');
  t.is(next.status, 404);
  t.deepEqual(await next.json(), AGENT_NOT_FOUND);

  const { chunks, done } = parseStream(await whole);
  t.true(done);
  t.is(textOfChunks(chunks), text);
  t.is(chunks.at(-1)!.type, 'finish');
  await until(async () => (await turnOutcomes(t, 'outlives'))[0] === 'finished', 'the turn to be saved');
  t.is(storedText((await storedMessages(t, 'outlives'))[1]), text);
  t.deepEqual(await turnOutcomes(t, 'after-archive'), []);
  // The provider was called for the running turn only.
  t.is(peer.requests.length, 1);
});
