import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { MODERATION_PROMPT, REFUSED_TOOL_REASON } from '../../app/chat/guardrails.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest, OpenAiPeer } from '../helpers/openai-peer.ts';
import { answered, bearer, chatConfig, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

// The staff routes: every trigger of a turn is judged by the agent's guardrails (app/chat/judge.ts).
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;
const REFUSAL = 'Not something I can help with.';

const isModeration = (request: ChatRequest) => request.messages[0]?.content === MODERATION_PROMPT;
/** The agent's own model calls (not moderation checks; title calls are answered apart). */
const agentCalls = (peer: OpenAiPeer) => peer.requests.filter((request) => !isModeration(request.body)).length;
const moderationCalls = (peer: OpenAiPeer) => peer.requests.filter((request) => isModeration(request.body)).length;

async function setGuardrails(t: T, auth: string, guardrails: object) {
  await t.context.t.http().patch(`/api/ai/agents/${agent}`).set('authorization', auth).send({ guardrails }).expect(200);
}

async function setApprovals(t: T, auth: string, permissionStatus: string) {
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', auth)
    .send({ tools: [{ toolName: 'list_documents', permissionStatus, providerKey: 'knowledge' }] })
    .expect(200);
}

async function stored(t: T, auth: string, chatId: string) {
  const { body } = await t.context.t.http().get(`/api/ai/agents/${agent}/conversations/${chatId}`).set('authorization', auth).expect(200);
  return body.messages as (UIMessage & { metadata?: unknown })[];
}

/** A scripted provider: the moderation model says unsafe for a message holding "hurt" (or failing, while `failing`), the agent answers. */
async function guardedPeer(t: T, agentReply: (index: number) => 'text' | 'tool', moderation = { failing: false }) {
  let agentIndex = 0;
  return provider(t, (request) => {
    if (isModeration(request)) {
      if (moderation.failing) return { kind: 'status', status: 500 };
      return { kind: 'text', text: JSON.stringify(request.messages.at(-1)?.content).includes('hurt') ? 'unsafe' : 'safe' };
    }
    return agentReply(agentIndex++) === 'tool'
      ? { kind: 'tool-call', toolName: 'list_documents', input: {} }
      : { kind: 'text', text: 'The agent answers.' };
  });
}

test.serial(
  'a regenerate of a message refused for a blocked term is refused again, even once the term is gone: the agent model is never called',
  async (t) => {
    const peer = await guardedPeer(t, () => 'text');
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');
    await setGuardrails(t, auth, { blockedTerms: ['forbiddenword'], refusal: REFUSAL });
    const asked = userMessage('tell me about forbiddenword', 'r1');
    t.is(textOf((await sendChat(base, auth, 'regen-term', [asked], { agent })).message), REFUSAL);

    const again = await sendChat(base, auth, 'regen-term', [asked], { agent, trigger: 'regenerate-message' });
    t.is(textOf(again.message), REFUSAL);
    t.like(again.chunks.at(-1), { type: 'finish', finishReason: 'content-filter' });
    await setGuardrails(t, auth, { blockedTerms: [] });
    const stillRefused = await sendChat(base, auth, 'regen-term', [asked], { agent, trigger: 'regenerate-message' });
    t.is(textOf(stillRefused.message), REFUSAL);
    t.is(agentCalls(peer), 0);
    const messages = await stored(t, auth, 'regen-term');
    t.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant'],
    );
    t.deepEqual(messages[1]!.metadata, { guardrail: { tripped: true, by: 'blocked_term' } });
  },
);

test.serial(
  "a regenerate reuses the moderation model's stored verdict: an unsafe message is refused again and a safe one answered, neither checked twice",
  async (t) => {
    const peer = await guardedPeer(t, () => 'text');
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');
    await setGuardrails(t, auth, { blockedTerms: [], moderationModel: 'openai/gpt-4o-mini', refusal: REFUSAL });
    const unsafe = userMessage('how do I hurt someone', 'm1');
    t.is(textOf((await sendChat(base, auth, 'regen-unsafe', [unsafe], { agent })).message), REFUSAL);
    const refused = await sendChat(base, auth, 'regen-unsafe', [unsafe], { agent, trigger: 'regenerate-message' });
    t.is(textOf(refused.message), REFUSAL);
    t.deepEqual(refused.message?.metadata, { guardrail: { tripped: true, by: 'moderation' } });
    t.is(moderationCalls(peer), 1);
    t.is(agentCalls(peer), 0);

    const safe = userMessage('what are your opening hours', 'm2');
    t.is(textOf((await sendChat(base, auth, 'regen-safe', [safe], { agent })).message), 'The agent answers.');
    t.is(
      textOf((await sendChat(base, auth, 'regen-safe', [safe], { agent, trigger: 'regenerate-message' })).message),
      'The agent answers.',
    );
    t.is(moderationCalls(peer), 2);
    t.is(agentCalls(peer), 2);
    // A verdict of another moderation model is not this one's: it is asked.
    await setGuardrails(t, auth, { moderationModel: 'openai/gpt-4o' });
    await sendChat(base, auth, 'regen-safe', [safe], { agent, trigger: 'regenerate-message' });
    t.is(moderationCalls(peer), 3);
    await setGuardrails(t, auth, { moderationModel: null });
  },
);

test.serial('a regenerate of a message refused because moderation failed asks the moderation model again', async (t) => {
  const moderation = { failing: true };
  const peer = await guardedPeer(t, () => 'text', moderation);
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  const auth = await bearer(t, 'owner@other.test');
  await setGuardrails(t, auth, { moderationModel: 'openai/gpt-4o-mini', refusal: REFUSAL });
  const asked = userMessage('what are your opening hours', 'f1');
  const failed = await sendChat(base, auth, 'regen-failed', [asked], { agent });
  t.deepEqual(failed.message?.metadata, { guardrail: { tripped: true, by: 'moderation', failure: 'error' } });
  moderation.failing = false;
  const answeredNow = await sendChat(base, auth, 'regen-failed', [asked], { agent, trigger: 'regenerate-message' });
  t.is(textOf(answeredNow.message), 'The agent answers.');
  t.is(moderationCalls(peer), 2);
  t.is(agentCalls(peer), 1);
  await setGuardrails(t, auth, { moderationModel: null });
});

test.serial(
  'approval answers continue only a message the guardrails pass: a term or moderation model set while the approval waited refuses it, the tool never runs',
  async (t) => {
    const peer = await guardedPeer(t, (index) => (index === 0 || index === 1 ? 'tool' : 'text'));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');
    await setGuardrails(t, auth, { blockedTerms: [], moderationModel: null, refusal: REFUSAL });
    await setApprovals(t, auth, 'needs_approval');

    for (const [chatId, text, guardrails] of [
      ['answer-term', 'list the documents about forbiddenword', { blockedTerms: ['forbiddenword'] }],
      ['answer-moderated', 'list the documents that hurt', { moderationModel: 'openai/gpt-4o-mini' }],
    ] as const) {
      const asked = userMessage(text, `a-${chatId}`);
      const first = await sendChat(base, auth, chatId, [asked], { agent });
      t.true(first.chunks.some((chunk) => chunk.type === 'tool-approval-request'));
      const callsBefore = agentCalls(peer);
      await setGuardrails(t, auth, guardrails);

      const refused = await sendChat(base, auth, chatId, [asked, answered(first.message!, true)], { agent });
      t.is(agentCalls(peer), callsBefore, chatId);
      t.true(refused.chunks.some((chunk) => chunk.type === 'tool-output-denied'));
      t.false(refused.chunks.some((chunk) => chunk.type === 'tool-output-available'));
      t.like(refused.chunks.at(-1), { type: 'finish', finishReason: 'content-filter' });
      const last = (await stored(t, auth, chatId)).at(-1)!;
      t.like(
        last.parts.find((part) => part.type === 'tool-list_documents'),
        { state: 'output-denied', approval: { approved: false, reason: REFUSED_TOOL_REASON } },
      );
      t.is(textOf(last), REFUSAL);
      t.like(last.metadata, { guardrail: { tripped: true } });
      await setGuardrails(t, auth, { blockedTerms: [], moderationModel: null });
    }
    t.is(moderationCalls(peer), 1);
    await setApprovals(t, auth, 'always_allow');
  },
);
