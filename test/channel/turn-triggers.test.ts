import { setTimeout as delay } from 'node:timers/promises';
import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { MODERATION_PROMPT } from '../../app/chat/guardrails.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest, OpenAiPeer } from '../helpers/openai-peer.ts';
import { answered, chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { anonymousSession, putChannel, SHOP, type T } from './support.ts';

// The public routes: whatever starts an end user's turn, the guardrails judge the message it
// answers and the daily quota counts it (docs/channel.md, "Quotas, approvals, tools").
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.support.id;
const REFUSAL = 'Please ask our team.';

const isModeration = (request: ChatRequest) => request.messages[0]?.content === MODERATION_PROMPT;
const agentCalls = (peer: OpenAiPeer) => peer.requests.filter((request) => !isModeration(request.body)).length;

async function owner(t: T) {
  return `Bearer ${await t.context.t.login('owner@demo.test')}`;
}

async function setAgent(t: T, guardrails: object, permissionStatus = 'needs_approval') {
  const auth = await owner(t);
  await t.context.t.http().patch(`/api/ai/agents/${agent}`).set('authorization', auth).send({ guardrails }).expect(200);
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', auth)
    .send({ tools: [{ toolName: 'list_documents', permissionStatus, providerKey: 'knowledge' }] })
    .expect(200);
}

/** A public chat POST as the widget sends it; its status and whole body (the stream's chunks as text). */
async function chat(base: string, token: string, body: object) {
  const response = await fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function conversation(base: string, token: string, chatId: string) {
  const read = await fetch(`${base}/api/public/conversations/${chatId}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await read.json()) as { messages: (UIMessage & { metadata?: unknown })[] }).messages;
}

/** The assistant message the stream's `tool-approval-request` asked in, as the widget holds it. */
async function waitingAnswer(base: string, token: string, chatId: string) {
  const last = (await conversation(base, token, chatId)).at(-1)!;
  return answered(last, true);
}

/** A provider whose moderation model calls "hurt" unsafe and whose agent asks for list_documents first, then answers. */
async function peerFor(t: T) {
  return provider(t, (request) => {
    if (isModeration(request))
      return { kind: 'text', text: JSON.stringify(request.messages.at(-1)?.content).includes('hurt') ? 'unsafe' : 'safe' };
    return request.messages.some((message) => message.role === 'tool')
      ? { kind: 'text', text: 'Here they are.' }
      : { kind: 'tool-call', toolName: 'list_documents', input: {} };
  });
}

test.serial(
  "an end user's regenerate of a refused message is refused again, for a blocked term and for the moderation model",
  async (t) => {
    const peer = await peerFor(t);
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    await setAgent(t, { blockedTerms: ['forbiddenword'], moderationModel: 'openai/gpt-4o-mini', refusal: REFUSAL }, 'always_allow');
    const { publishableKey } = await putChannel(t);
    const session = await anonymousSession(t, publishableKey);
    for (const [chatId, text] of [
      ['public-term', 'tell me about forbiddenword'],
      ['public-moderated', 'how do I hurt someone'],
    ] as const) {
      const message = userMessage(text, `p-${chatId}`);
      t.regex((await chat(base, session.sessionToken, { id: chatId, messages: [message] })).text, /"finishReason":"content-filter"/);
      const again = await chat(base, session.sessionToken, { id: chatId, messages: [message], trigger: 'regenerate-message' });
      t.is(again.status, 200);
      t.true(again.text.includes(REFUSAL), chatId);
      t.regex(again.text, /"finishReason":"content-filter"/);
    }
    t.is(agentCalls(peer), 0);
    // One check: the stored verdict answered the regenerate.
    t.is(peer.requests.filter((request) => isModeration(request.body)).length, 1);
    await setAgent(t, { blockedTerms: [], moderationModel: null }, 'always_allow');
  },
);

test.serial(
  'an end user answering an approval (approvals: "end_user") of a message now refused gets the refusal; the tool never runs',
  async (t) => {
    const peer = await peerFor(t);
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    await setAgent(t, { blockedTerms: [], moderationModel: null, refusal: REFUSAL });
    const { publishableKey } = await putChannel(t, { approvals: 'end_user' });
    const session = await anonymousSession(t, publishableKey);
    const asked = userMessage('list the documents about forbiddenword', 'e1');
    t.regex((await chat(base, session.sessionToken, { id: 'self-answer', messages: [asked] })).text, /tool-approval-request/);
    await setAgent(t, { blockedTerms: ['forbiddenword'] });
    const answer = await waitingAnswer(base, session.sessionToken, 'self-answer');
    const refused = await chat(base, session.sessionToken, { id: 'self-answer', messages: [asked, answer] });
    t.is(refused.status, 200);
    t.regex(refused.text, /"type":"tool-output-denied"/);
    t.true(refused.text.includes(REFUSAL));
    t.is(agentCalls(peer), 1);
    await setAgent(t, { blockedTerms: [] }, 'always_allow');
    await putChannel(t);
  },
);

test.serial("a staff answer's continuation of a message now refused answers the refusal: the agent's model is not called", async (t) => {
  const peer = await peerFor(t);
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await setAgent(t, { blockedTerms: [], moderationModel: null, refusal: REFUSAL });
  const { publishableKey } = await putChannel(t, { approvals: 'staff' });
  const session = await anonymousSession(t, publishableKey);
  t.regex(
    (await chat(base, session.sessionToken, { id: 'staff-answer', messages: [userMessage('list the documents that hurt', 's1')] })).text,
    /tool-approval-request/,
  );
  await setAgent(t, { moderationModel: 'openai/gpt-4o-mini' });
  const auth = await owner(t);
  const inbox = await t.context.t.http().get('/api/ai/approvals').set('authorization', auth).expect(200);
  const approvalId = (inbox.body.approvals as { id: string; endUser: { id: string } }[]).find(
    (approval) => approval.endUser.id === session.endUser.id,
  )!.id;
  const staffAnswer = await fetch(`${base}/api/ai/approvals/${approvalId}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ approved: true }),
  });
  t.is(staffAnswer.status, 200);
  let last: (UIMessage & { metadata?: unknown }) | undefined;
  for (let tries = 0; tries < 300 && !last?.parts.some((part) => part.type === 'text'); tries++) {
    await delay(10); // the continuation is the service's own turn; the conversation shows its end
    last = (await conversation(base, session.sessionToken, 'staff-answer')).at(-1);
  }
  t.like(last?.metadata, { guardrail: { tripped: true, by: 'moderation' } });
  t.like(
    last?.parts.find((part) => part.type === 'tool-list_documents'),
    { state: 'output-denied' },
  );
  t.is(agentCalls(peer), 1);
  await setAgent(t, { moderationModel: null }, 'always_allow');
  await putChannel(t);
});

test.serial(
  'at a quota of 2 a day every turn an end user starts counts: a message, a regenerate, an approval answer; past it each is 429 and no model is called',
  async (t) => {
    const peer = await peerFor(t);
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    await setAgent(t, { blockedTerms: [], moderationModel: null });
    const { publishableKey } = await putChannel(t, { approvals: 'end_user', endUserMessagesPerDay: 2 });

    // A message and a regenerate use the quota up.
    const first = await anonymousSession(t, publishableKey);
    const asked = userMessage('list the documents', 'q1');
    t.is((await chat(base, first.sessionToken, { id: 'quota', messages: [asked] })).status, 200);
    t.is((await chat(base, first.sessionToken, { id: 'quota', messages: [asked], trigger: 'regenerate-message' })).status, 200);
    const calls = peer.requests.length;
    const answer = await waitingAnswer(base, first.sessionToken, 'quota');
    for (const body of [
      { id: 'quota', messages: [asked], trigger: 'regenerate-message' },
      { id: 'quota', messages: [asked, answer] },
      { id: 'quota-2', messages: [userMessage('hello', 'q2')] },
    ]) {
      const refused = await chat(base, first.sessionToken, body);
      t.is(refused.status, 429);
      t.is((JSON.parse(refused.text) as { errorCode: string }).errorCode, 'AI.END_USER_QUOTA_EXCEEDED');
    }
    t.is(peer.requests.length, calls);

    // A message and an approval answer use it up too.
    const second = await anonymousSession(t, publishableKey);
    t.is((await chat(base, second.sessionToken, { id: 'quota', messages: [asked] })).status, 200);
    const secondAnswer = await waitingAnswer(base, second.sessionToken, 'quota');
    t.regex(
      (await chat(base, second.sessionToken, { id: 'quota', messages: [asked, secondAnswer] })).text,
      /"type":"tool-output-available"/,
    );
    t.is((await chat(base, second.sessionToken, { id: 'quota-2', messages: [userMessage('hello', 'q3')] })).status, 429);
    await setAgent(t, {}, 'always_allow');
    await putChannel(t);
  },
);
