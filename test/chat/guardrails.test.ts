import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { MODERATION_PROMPT } from '../../app/chat/guardrails.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest } from '../helpers/openai-peer.ts';
import { bearer, chatConfig, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;

const isModeration = (request: ChatRequest) => request.messages[0]?.content === MODERATION_PROMPT;
/** What the peer was asked (title calls are answered apart, test/helpers/openai-peer.ts). */
const asked = (peer: { requests: { body: ChatRequest }[] }) => peer.requests.map((request) => request.body);

async function setGuardrails(t: T, auth: string, guardrails: object) {
  return t.context.t.http().patch(`/api/ai/agents/${agent}`).set('authorization', auth).send({ guardrails });
}

const usageOf = (t: T, action: string) =>
  t.context.t.db.pool.any(sql.type(z.strictObject({ model: z.string(), tokens: z.number() }))`
    SELECT model_id AS model, (input_tokens + output_tokens)::int AS tokens FROM usage_events
    WHERE agent_id = ${agent} AND action_type = ${action}::usage_action ORDER BY created_at, id`);

async function storedAnswer(t: T, auth: string, chatId: string) {
  const { body } = await t.context.t.http().get(`/api/ai/agents/${agent}/conversations/${chatId}`).set('authorization', auth).expect(200);
  return body.messages as { role: string; parts: { type: string; text?: string }[]; metadata?: unknown }[];
}

test.serial('guardrails: defaults on a new agent, validated, and a PATCH changes only the fields it gives', async (t) => {
  const auth = await bearer(t, 'owner@other.test');
  const http = t.context.t.http;
  const created = await http().post('/api/ai/agents').set('authorization', auth).send({ name: 'Guarded' }).expect(201);
  t.deepEqual(created.body.guardrails, { blockedTerms: [], moderationModel: null, refusal: "Sorry, I can't help with that." });

  const tooMany = await setGuardrails(t, auth, { blockedTerms: Array.from({ length: 201 }, (_, i) => `t${i}`) });
  t.is(tooMany.status, 400);
  t.deepEqual(tooMany.body.errors[0].path, ['guardrails', 'blockedTerms']);
  const longTerm = await setGuardrails(t, auth, { blockedTerms: ['x'.repeat(101)] });
  t.deepEqual(longTerm.body.errors[0].path, ['guardrails', 'blockedTerms', '0']);
  t.is((await setGuardrails(t, auth, { refusal: '' })).status, 400);
  t.is((await setGuardrails(t, auth, { refusal: 'r'.repeat(501) })).status, 400);
  t.is((await setGuardrails(t, auth, { unknown: true })).status, 400);

  const set = await setGuardrails(t, auth, { blockedTerms: ['refund'], refusal: 'Please call us.' }).then((r) => r.body);
  t.deepEqual(set.guardrails, { blockedTerms: ['refund'], moderationModel: null, refusal: 'Please call us.' });
  const kept = await setGuardrails(t, auth, { moderationModel: 'openai/gpt-4o-mini' }).then((r) => r.body);
  t.deepEqual(kept.guardrails, { blockedTerms: ['refund'], moderationModel: 'openai/gpt-4o-mini', refusal: 'Please call us.' });
  const cleared = await setGuardrails(t, auth, { blockedTerms: [], moderationModel: null }).then((r) => r.body);
  t.deepEqual(cleared.guardrails.blockedTerms, []);
});

test.serial('on the platform key an unpriced moderation model is refused where it is set: 400 AI.MODEL_NOT_AVAILABLE', async (t) => {
  const auth = await bearer(t, 'owner@other.test');
  const refused = await setGuardrails(t, auth, { moderationModel: 'vendor/unpriced-guard' });
  t.is(refused.status, 400);
  t.is(refused.body.errorCode, 'AI.MODEL_NOT_AVAILABLE');
  t.regex(refused.body.message.en, /vendor\/unpriced-guard/);
  const created = await t.context.t
    .http()
    .post('/api/ai/agents')
    .set('authorization', auth)
    .send({ name: 'Unpriced guard', guardrails: { moderationModel: 'vendor/unpriced-guard' } });
  t.is(created.status, 400);
  // With the organization's own key, any model may check.
  await t.context.t.http().put('/api/ai/provider-key').set('authorization', auth).send({ apiKey: 'sk-own-key-000000001' }).expect(204);
  t.is((await setGuardrails(t, auth, { moderationModel: 'vendor/unpriced-guard' })).status, 200);
  await t.context.t.http().delete('/api/ai/provider-key').set('authorization', auth).expect(204);
  await setGuardrails(t, auth, { moderationModel: null }).then((r) => t.is(r.status, 200));
});

test.serial('a blocked term, in any case and as a whole word, is refused: the message is stored, the model never called', async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'A normal answer.' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t, 'owner@other.test');
  await setGuardrails(t, auth, { blockedTerms: ['refund', 'credit card'], refusal: 'Please call our team.' });

  const refused = await sendChat(base, auth, 'blocked', [userMessage('Can I get a REFUND on my credit   Card?', 'b1')], { agent });
  t.is(textOf(refused.message), 'Please call our team.');
  t.like(refused.chunks.at(-1), { type: 'finish', finishReason: 'content-filter' });
  t.deepEqual(refused.message?.metadata, { guardrail: { tripped: true, by: 'blocked_term' } });
  t.is(peer.requests.length, 0);
  const stored = await storedAnswer(t, auth, 'blocked');
  t.deepEqual(
    stored.map((message) => message.role),
    ['user', 'assistant'],
  );
  t.is(stored[0]!.parts[0]!.text, 'Can I get a REFUND on my credit   Card?');
  t.deepEqual(stored[1]!.metadata, { guardrail: { tripped: true, by: 'blocked_term' } });
  t.is(stored[1]!.parts.find((part) => part.type === 'text')!.text, 'Please call our team.');
  t.deepEqual(await usageOf(t, 'guardrail_check'), [], 'a blocked-term check calls no model');

  // Whole words only: "refunds" and "credit cards" are other words.
  const passed = await sendChat(base, auth, 'not-blocked', [userMessage('Are refunds possible with credit cards?', 'b2')], { agent });
  t.is(textOf(passed.message), 'A normal answer.');
  t.is(asked(peer).length, 1);
  await setGuardrails(t, auth, { blockedTerms: [] });
});

test.serial(
  'the moderation model checks each new message first: "unsafe" refuses it, "safe" lets the agent answer; both are guardrail_check usage',
  async (t) => {
    const peer = await provider(t, (request) => {
      if (!isModeration(request)) return { kind: 'text', text: 'The agent answers.' };
      const said = JSON.stringify(request.messages.at(-1)?.content);
      return { kind: 'text', text: said.includes('hurt') ? 'Unsafe.' : 'safe', usage: { prompt: 90, completion: 1 } };
    });
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');
    await setGuardrails(t, auth, { moderationModel: 'openai/gpt-4o-mini', refusal: 'Not here.' });

    const refused = await sendChat(base, auth, 'moderated', [userMessage('how do I hurt someone', 'm1')], { agent });
    t.is(textOf(refused.message), 'Not here.');
    t.deepEqual(refused.message?.metadata, { guardrail: { tripped: true, by: 'moderation' } });
    t.is(peer.requests.length, 1);
    const check = asked(peer)[0]!;
    t.true(isModeration(check));
    t.not(check.stream, true);
    t.true((check.max_tokens ?? 0) <= 10);
    t.deepEqual(check.messages.at(-1), { role: 'user', content: 'how do I hurt someone' });

    const allowed = await sendChat(base, auth, 'moderated-ok', [userMessage('what are your opening hours', 'm2')], { agent });
    t.is(textOf(allowed.message), 'The agent answers.');
    t.is(asked(peer).length, 3);
    t.true(isModeration(asked(peer)[1]!));
    t.false(isModeration(asked(peer)[2]!));
    t.deepEqual(await usageOf(t, 'guardrail_check'), [
      { model: 'openai/gpt-4o-mini', tokens: 91 },
      { model: 'openai/gpt-4o-mini', tokens: 91 },
    ]);
    await setGuardrails(t, auth, { moderationModel: null });
  },
);

test.serial('a moderation check that fails refuses the message (fails closed) and the stored metadata says so', async (t) => {
  const peer = await provider(t, (request) => (isModeration(request) ? { kind: 'status', status: 500 } : { kind: 'text', text: 'never' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t, 'owner@other.test');
  await setGuardrails(t, auth, { moderationModel: 'openai/gpt-4o-mini', refusal: "Sorry, I can't help with that." });

  const refused = await sendChat(base, auth, 'moderation-down', [userMessage('hello there', 'f1')], { agent });
  t.is(textOf(refused.message), "Sorry, I can't help with that.");
  t.like(refused.chunks.at(-1), { type: 'finish', finishReason: 'content-filter' });
  const stored = await storedAnswer(t, auth, 'moderation-down');
  t.deepEqual(stored.at(-1)!.metadata, { guardrail: { tripped: true, by: 'moderation', failure: 'error' } });
  t.is(asked(peer).filter((request) => !isModeration(request)).length, 0);
  await setGuardrails(t, auth, { moderationModel: null });
});
