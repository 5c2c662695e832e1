import { setTimeout as delay } from 'node:timers/promises';
import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { TITLE_PROMPT } from '../../app/chat/titles.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest, Reply } from '../helpers/openai-peer.ts';
import { bearer, chatConfig, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;

const isTitle = (request: ChatRequest) => request.messages[0]?.content === TITLE_PROMPT;

const titleOf = (t: T, clientId: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ title: z.string() }))`
    SELECT title FROM chat_conversations WHERE agent_id = ${agent} AND client_id = ${clientId}`);

/** Waits for the service to store a conversation's title: the title call is the peer's, its write the service's. */
async function titled(t: T, clientId: string, from: string): Promise<string> {
  for (let tries = 0; tries < 500; tries += 1) {
    const title = await titleOf(t, clientId);
    if (title !== from) return title;
    await delay(10); // polls PostgreSQL for the service's write, no clock stands in for it
  }
  return titleOf(t, clientId);
}

const titleRows = (t: T) =>
  t.context.t.db.pool.any(sql.type(z.strictObject({ model: z.string(), input: z.number(), output: z.number() }))`
    SELECT model_id AS model, input_tokens::int AS input, output_tokens::int AS output FROM usage_events
    WHERE agent_id = ${agent} AND action_type = 'title_generation' ORDER BY created_at, id`);

test.serial(
  'a new conversation is titled by one short call beside its first turn: sent as data-conversation-title, listed, recorded as title_generation',
  async (t) => {
    const first = 'How long do refunds take for an order paid by card?\nOrder 4411, placed last week.';
    let stored: Promise<string> | undefined;
    const peer = await provider(
      t,
      (request): Reply | Promise<Reply> => {
        if (isTitle(request)) return { kind: 'text', text: '"Refund timing for card orders."', usage: { prompt: 60, completion: 6 } };
        // The answer waits until the title is stored, so the stream is still open when it comes.
        stored ??= titled(t, 'titled', 'How long do refunds take for an order paid by card?');
        return stored.then(() => ({ kind: 'text', text: 'Five to seven days.' }));
      },
      { titles: 'script' },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');

    const { chunks, message } = await sendChat(base, auth, 'titled', [userMessage(first, 't1')], { agent });

    t.is(textOf(message), 'Five to seven days.');
    t.deepEqual(
      chunks.filter((chunk) => chunk.type === 'data-conversation-title'),
      [{ type: 'data-conversation-title', data: { title: 'Refund timing for card orders' } }],
    );
    const call = peer.requests.map((request) => request.body).find(isTitle)!;
    t.not(call.stream, true);
    t.is(call.max_tokens, 30);
    t.deepEqual(call.messages.at(-1), { role: 'user', content: first });
    const list = await t.context.t.http().get(`/api/ai/agents/${agent}/conversations`).set('authorization', auth).expect(200);
    t.like(
      list.body.conversations.find((conversation: { id: string }) => conversation.id === 'titled'),
      { title: 'Refund timing for card orders' },
    );
    t.deepEqual(await titleRows(t), [{ model: 'openai/gpt-4o-mini', input: 60, output: 6 }]);

    // The next turn of the conversation makes no title call.
    await sendChat(base, auth, 'titled', [userMessage('And for PayPal?', 't2')], { agent });
    t.is(peer.requests.map((request) => request.body).filter(isTitle).length, 1);
  },
);

test.serial('the title model reads at most the first 2,000 characters and a long title is cut at 80', async (t) => {
  const peer = await provider(
    t,
    (request) =>
      isTitle(request) ? { kind: 'text', text: `${'Long title words '.repeat(20)}\nsecond line` } : { kind: 'text', text: 'ok' },
    { titles: 'script' },
  );
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'openai/gpt-4o-mini' }));
  const auth = await bearer(t, 'owner@other.test');
  const long = `${'é'.repeat(1990)}${'x'.repeat(3000)}`;
  await sendChat(base, auth, 'long-first', [userMessage(long, 'l1')], { agent });
  const title = await titled(t, 'long-first', [...long].slice(0, 79).join('') + '…');
  t.is([...title].length, 80);
  t.true(title.startsWith('Long title words'));
  t.true(title.endsWith('…'));
  const call = peer.requests.map((request) => request.body).find(isTitle)!;
  t.is([...(call.messages.at(-1)!.content as string)].length, 2000);
});

test.serial('a title call that fails leaves the first line as the title and the turn as it was', async (t) => {
  const peer = await provider(t, (request) => (isTitle(request) ? { kind: 'status', status: 500 } : { kind: 'text', text: 'Answered.' }), {
    titles: 'script',
  });
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t, 'owner@other.test');
  const { chunks, message } = await sendChat(base, auth, 'untitled', [userMessage('Where is my parcel?\nIt is late.', 'u1')], { agent });
  t.is(textOf(message), 'Answered.');
  t.like(chunks.at(-1), { type: 'finish', finishReason: 'stop' });
  t.false(chunks.some((chunk) => chunk.type === 'data-conversation-title'));
  t.is(await titleOf(t, 'untitled'), 'Where is my parcel?');
});

test.serial('on the platform key an unpriced AI_TITLE_MODEL is never called: titles stay the first line, logged once', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'Answered.' }), { titles: 'script' });
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'vendor/unpriced-titler' }));
  const auth = await bearer(t, 'owner@other.test');
  const logged = () =>
    t.context.t.logs.entries.filter((entry) => String(entry.msg).startsWith('title model is not in the price list')).length;
  const before = logged();
  await sendChat(base, auth, 'unpriced-1', [userMessage('First question', 'p1')], { agent });
  await sendChat(base, auth, 'unpriced-2', [userMessage('Second question', 'p2')], { agent });
  for (let tries = 0; tries < 500 && logged() === before; tries += 1) await delay(10); // the service's log line, written after the turn
  t.is(peer.requests.filter((request) => isTitle(request.body)).length, 0);
  t.is(await titleOf(t, 'unpriced-1'), 'First question');
  t.is(await titleOf(t, 'unpriced-2'), 'Second question');
  t.is(logged() - before, 1);
});
