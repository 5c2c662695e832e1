import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { MAX_ANSWER_BYTES } from '../../app/metering/answer-cap.ts';
import { withTestApp } from '../helpers/app.ts';
import { agentId, bearer, chatConfig, chatPath, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest);
const conversationPath = (chatId: string) => `/api/ai/agents/${agentId}/conversations/${chatId}`;

async function post(base: string, auth: string, chatId: string, text: string) {
  const response = await fetch(`${base}${chatPath()}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text)], trigger: 'submit-message' }),
  });
  return { status: response.status, body: await response.text() };
}

/** Stored messages of the caller's conversation, straight from the table (their text bytes). */
async function storedAnswerBytes(t: T, chatId: string) {
  return t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ bytes: z.number() }))`
    SELECT octet_length(coalesce((SELECT string_agg(p->>'text', '') FROM jsonb_array_elements(m.parts) p WHERE p->>'type' = 'text'), ''))::int AS bytes
    FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
    WHERE c.client_id = ${chatId} AND m.role = 'assistant' ORDER BY m.id`);
}

test.serial('nine turns of a 15 MB answer (the BYOK scenario) store at most 1 MiB each, and end with finish reason length', async (t) => {
  const peer = await provider(t, () => ({ kind: 'huge', bytes: 15 * 1024 * 1024 }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  const startedAt = new Date();
  for (let turn = 0; turn < 9; turn += 1) {
    const { message, chunks } = await sendChat(base, auth, 'huge-answers', [userMessage(`Write forever, take ${turn}`, `huge-${turn}`)]);
    t.is(Buffer.byteLength(textOf(message)), MAX_ANSWER_BYTES);
    t.deepEqual(chunks.at(-1), { type: 'finish', finishReason: 'length' });
    // The provider's stream was cut, not read to its end.
    t.false((await peer.closes[turn])!.finished);
  }
  const stored = await storedAnswerBytes(t, 'huge-answers');
  t.deepEqual(stored, Array(9).fill(MAX_ANSWER_BYTES));
  // The cut calls are still metered (estimated: the provider's counts never arrived).
  const outputs = await t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ output: z.string() }))`
      SELECT output_tokens::text AS output FROM usage_events WHERE agent_id = ${agentId} AND created_at >= ${startedAt.toISOString()}
        AND action_type = 'user_interaction' ORDER BY created_at`);
  t.is(outputs.length, 9);
  for (const output of outputs) t.true(Number(output) > 100_000);
  // A page of the conversation ends at 8 MiB of stored messages: the rest on the next page.
  const read = (query: object) =>
    t.context.t.http().get(conversationPath('huge-answers')).query(query).set('authorization', auth).expect(200);
  const first = await read({});
  t.true(first.body.hasMore);
  t.true(first.body.messages.length < 18 && first.body.messages.length >= 14, `${first.body.messages.length} messages`);
  const rest = await read({ before: first.body.messages[0].id });
  t.false(rest.body.hasMore);
  t.is(first.body.messages.length + rest.body.messages.length, 18);
});

test.serial('a conversation holds at most 1000 messages: the next user message is 409 AI.CONVERSATION_FULL naming the limit', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'fine' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t);
  t.is((await post(base, auth, 'full', 'first')).status, 200);
  // Fill it to 998 messages (the first turn stored 2).
  const conversation = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ id: z.string() }))`
    SELECT id FROM chat_conversations WHERE client_id = 'full'`);
  const rows = Array.from({ length: 996 }, (_, i) => [
    conversation,
    uuidv7(),
    i % 2 === 0 ? 'user' : 'assistant',
    JSON.stringify([{ type: 'text', text: `message ${i}` }]),
  ]);
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO chat_messages (conversation_id, id, role, parts, created_at, updated_at)
    SELECT c, i, r, p::jsonb, now(), now() FROM ${sql.unnest(rows, ['uuid', 'uuid', 'text', 'text'])} AS x (c, i, r, p)`);
  t.is((await post(base, auth, 'full', 'the 999th message')).status, 200);
  const requests = peer.requests.length;
  const refused = await post(base, auth, 'full', 'one too many');
  t.is(refused.status, 409);
  const body = JSON.parse(refused.body);
  t.is(body.errorCode, 'AI.CONVERSATION_FULL');
  t.regex(body.message.en, /at most 1000 messages.*new conversation/);
  t.is(peer.requests.length, requests);
  const stored = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM chat_messages WHERE conversation_id = ${conversation}`);
  t.is(stored, 1000);
  // A new conversation goes on.
  t.is((await post(base, auth, 'full-2', 'a fresh start')).status, 200);

  // The full conversation reads a page at a time: the newest 100, oldest first.
  const http = () => t.context.t.http().get(conversationPath('full')).set('authorization', auth);
  const newest = await http().expect(200);
  t.is(newest.body.messages.length, 100);
  t.true(newest.body.hasMore);
  t.is(newest.body.messages.at(-1).parts.find((p: { type: string }) => p.type === 'text').text, 'fine');
  const ids = newest.body.messages.map((m: { id: string }) => m.id);
  t.deepEqual(ids, [...ids].sort());
  const older = await http().query({ limit: 200, before: ids[0] }).expect(200);
  t.is(older.body.messages.length, 200);
  t.true(older.body.messages.at(-1).id < ids[0]);
  let before = older.body.messages[0].id as string;
  let seen = 300;
  for (;;) {
    const page = await http().query({ limit: 200, before }).expect(200);
    seen += page.body.messages.length;
    if (!page.body.hasMore) break;
    before = page.body.messages[0].id;
  }
  t.is(seen, 1000);
  for (const query of [{ limit: 0 }, { limit: 201 }, { limit: 'ten' }, { before: 'not-a-uuid' }]) {
    await http().query(query).expect(400);
  }
});
