import anyTest from 'ava';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { estimateTokens } from '../../app/metering/tokens.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest } from '../helpers/openai-peer.ts';
import { agentId, bearer, chatConfig, provider, sendChat, serve, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest);

const SENTENCES = [
  'The customer asked whether the premium plan includes priority support on weekends.',
  'Refunds are issued to the original payment method within five business days of approval.',
  'Our help center lists the steps: open Settings, choose Billing, then select the invoice to dispute.',
  'If the order shipped already, the return label is emailed once the carrier confirms pickup.',
  'Enterprise contracts renew yearly; a notice 30 days before renewal is required to cancel.',
  'Two-factor authentication can be reset by an administrator from the Members page.',
];
/** Realistic help-center prose of about `sentences` sentences (15-20 tokens each). */
const prose = (seed: number, sentences: number) =>
  Array.from({ length: sentences }, (_, i) => SENTENCES[(seed + i * 5) % SENTENCES.length]).join(' ');
/** A tool result as a page reader returns it: JSON with a long text field. */
const PAGE = JSON.stringify({ url: 'https://help.example.com/refunds', title: 'Refund policy', text: prose(3, 70) });

type Stored = { role: 'user' | 'assistant'; parts: Record<string, unknown>[] };
const text = (value: string) => ({ type: 'text', text: value });

/** The history of the tests, oldest first: old pairs, a tool call with its result, recent pairs. */
const HISTORY: Stored[] = [
  ...Array.from({ length: 6 }, (_, i): Stored[] => [
    { role: 'user', parts: [text(`Old question ${i}: ${prose(i, 2)}`)] },
    { role: 'assistant', parts: [{ type: 'step-start' }, text(`Old answer ${i}: ${prose(i + 1, 4)}`)] },
  ]).flat(),
  { role: 'user', parts: [text('Please check the refund page.')] },
  {
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-fetch_url',
        toolCallId: 'call_at_the_cut',
        state: 'output-available',
        input: { url: 'https://help.example.com/refunds' },
        output: PAGE,
      },
      { type: 'step-start' },
      text('The refund page says refunds take five business days.'),
    ],
  },
  ...Array.from({ length: 3 }, (_, i): Stored[] => [
    { role: 'user', parts: [text(`Recent question ${i}: ${prose(i + 2, 2)}`)] },
    { role: 'assistant', parts: [{ type: 'step-start' }, text(`Recent answer ${i}: ${prose(i + 3, 3)}`)] },
  ]).flat(),
];

/** A conversation of the caller holding HISTORY after one real turn. */
async function seededConversation(t: T, base: string, auth: string, chatId: string) {
  await sendChat(base, auth, chatId, [userMessage('The very first message')]);
  const conversation = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ id: z.string() }))`
    SELECT id FROM chat_conversations WHERE client_id = ${chatId}`);
  for (const message of HISTORY)
    await t.context.t.db.pool.query(sql.unsafe`
      INSERT INTO chat_messages (conversation_id, id, role, parts, created_at, updated_at)
      VALUES (${conversation}, ${uuidv7()}, ${message.role}, ${sql.jsonb(message.parts as never)}, now(), now())`);
}

const contentOf = (message: ChatRequest['messages'][number]) =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? message.tool_calls ?? '');
const sentText = (request: ChatRequest) => request.messages.map(contentOf).join('\n');

/** No tool call without its result and no result without its call, in what the provider received. */
function assertPaired(t: T, request: ChatRequest) {
  const calls = request.messages.flatMap((m) => (m.tool_calls ?? []).map((call) => (call as { id: string }).id));
  const results = request.messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
  t.deepEqual(calls, results);
}

test.serial(
  'a conversation larger than the window sends the newest whole messages that fit; the tool call at the cut goes with its result',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'Answered from the recent messages.' }));
    const auth = await bearer(t);
    const narrow = await serve(t, chatConfig({ gatewayUrl: peer.url, contextMaxTokens: 600 }));
    await seededConversation(t, narrow, auth, 'window');
    const toolUnitTokens = estimateTokens(PAGE);
    t.true(toolUnitTokens > 1000, `the tool result alone is ${toolUnitTokens} tokens`);

    await sendChat(narrow, auth, 'window', [userMessage('So how long do refunds take?')]);
    const sent = peer.requests.at(-1)!.body;
    // The new user message last, the recent pairs and the text after the tool call before it.
    t.deepEqual(sent.messages.at(-1), { role: 'user', content: 'So how long do refunds take?' });
    t.is(sent.messages[0]!.role, 'system');
    t.regex(sentText(sent), /Recent question 0[\s\S]*Recent answer 2/);
    t.regex(sentText(sent), /The refund page says refunds take five business days/);
    // The call and its result (cut to a quarter of the window) did not fit together: neither is sent, nor anything older.
    t.notRegex(sentText(sent), /call_at_the_cut|Refund policy|Old question|The very first message/);
    assertPaired(t, sent);
    const estimate = sent.messages.reduce((sum, m) => sum + 4 + estimateTokens(contentOf(m)), 0);
    t.true(estimate <= 600, `sent about ${estimate} tokens`);

    // A wider window takes the call and its result together, the result cut to its quarter, then older messages while they fit.
    const wide = await serve(t, chatConfig({ gatewayUrl: peer.url, contextMaxTokens: 1400 }));
    await sendChat(wide, auth, 'window', [userMessage('And where did you read that?')]);
    const wider = peer.requests.at(-1)!.body;
    t.regex(sentText(wider), /call_at_the_cut/);
    t.regex(sentText(wider), /Refund policy.*\[cut to fit the context window: about 350 of \d+ tokens\]/);
    t.regex(sentText(wider), /Please check the refund page/);
    t.regex(sentText(wider), /Old answer 5/);
    t.notRegex(sentText(wider), /The very first message|Old question 0/);
    assertPaired(t, wider);
    const wideEstimate = wider.messages.reduce((sum, m) => sum + 4 + estimateTokens(contentOf(m)), 0);
    t.true(wideEstimate <= 1400, `sent about ${wideEstimate} tokens`);

    // Nothing is lost: every message stays stored and readable, the tool result whole.
    const stored = await t.context.t
      .http()
      .get(`/api/ai/agents/${agentId}/conversations/window`)
      .query({ limit: 200 })
      .set('authorization', auth)
      .expect(200);
    t.is(stored.body.messages.length, 2 + HISTORY.length + 4);
    t.regex(JSON.stringify(stored.body.messages[0]), /The very first message/);
    t.true(JSON.stringify(stored.body.messages).includes(JSON.stringify(PAGE)));
  },
);

test('the token estimate is within 10% of the o200k tokenizer on the texts of these tests, long ones included', (t) => {
  const long = Array.from({ length: 40 }, (_, i) => `${PAGE} ${prose(i, 12)}`).join('\n');
  t.true(long.length > 64 * 1024);
  for (const sample of [...HISTORY.flatMap((m) => m.parts.map((p) => JSON.stringify(p))), PAGE, long, 'Ignore <|endoftext|> this']) {
    const real = encode(sample, { disallowedSpecial: new Set() }).length;
    const estimate = estimateTokens(sample);
    t.true(Math.abs(estimate - real) <= real * 0.1, `${estimate} vs ${real} for ${sample.slice(0, 30)}`);
  }
});
