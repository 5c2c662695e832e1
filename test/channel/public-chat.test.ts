import anyTest from 'ava';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { sql } from 'slonik';
import { z } from 'zod';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { answered, chatConfig, provider, serve, textOf, userMessage } from '../chat/support.ts';
import { anonymousSession, putChannel, SHOP, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.support.id;

/** One end-user turn through the AI SDK's own client, as the widget sends it. */
async function publicChat(base: string, sessionToken: string, chatId: string, messages: UIMessage[]) {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${base}/api/public/chat`,
    headers: { authorization: `Bearer ${sessionToken}`, origin: SHOP },
  });
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collecting = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  const last = messages.at(-1);
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream<UIMessage>({
    stream: forMessage,
    ...(last?.role === 'assistant' ? { message: structuredClone(last) } : {}),
    terminateOnError: false,
  }))
    message = state;
  await collecting;
  return { chunks, message };
}

const post = (base: string, sessionToken: string, chatId: string, text: string, id = `m-${chatId}`) =>
  fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text, id)] }),
  });

async function setTools(t: T, permissionStatus: string) {
  const token = await t.context.t.login('owner@demo.test');
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', `Bearer ${token}`)
    .send({ tools: [{ toolName: 'list_documents', permissionStatus, providerKey: 'knowledge' }] })
    .expect(200);
}

test.serial(
  "an end user's turn is the same chat: streamed, stored in the end user's own conversation, its usage carrying the end user",
  async (t) => {
    const peer = await provider(t, () => ({
      kind: 'text',
      text: 'Refunds take five to seven days.',
      usage: { prompt: 50, completion: 8 },
    }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const { publishableKey } = await putChannel(t);
    const session = await anonymousSession(t, publishableKey);
    const { message } = await publicChat(base, session.sessionToken, 'widget-1', [userMessage('How long do refunds take?', 'w1')]);
    t.is(textOf(message), 'Refunds take five to seven days.');

    const read = (token: string, path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, origin: SHOP } });
    const list = await read(session.sessionToken, '/api/public/conversations');
    t.is(list.headers.get('access-control-allow-origin'), SHOP);
    const conversations = ((await list.json()) as { conversations: { id: string; title: string }[] }).conversations;
    t.deepEqual(
      conversations.map((conversation) => conversation.id),
      ['widget-1'],
    );
    const detail = (await (await read(session.sessionToken, '/api/public/conversations/widget-1')).json()) as { messages: UIMessage[] };
    t.deepEqual(
      detail.messages.map((m) => m.role),
      ['user', 'assistant'],
    );

    const rows = await t.context.t.db.pool.any(sql.type(
      z.strictObject({ endUserId: z.string().nullable(), userId: z.string().nullable() }),
    )`
    SELECT end_user_id::text AS "endUserId", user_id::text AS "userId" FROM usage_events
    WHERE agent_id = ${agent} AND action_type = 'user_interaction' AND end_user_id IS NOT NULL`);
    t.deepEqual(rows, [{ endUserId: session.endUser.id, userId: null }]);

    // Another end user, and the staff, see none of it; the staff's own conversation of the same id is theirs.
    const other = await anonymousSession(t, publishableKey);
    for (const path of ['/api/public/conversations/widget-1', '/api/public/chat/widget-1/stream']) {
      const response = await read(other.sessionToken, path);
      t.is(response.status, 404, path);
      t.is(((await response.json()) as { errorCode: string }).errorCode, 'AI.CONVERSATION_NOT_FOUND');
    }
    const stop = await fetch(`${base}/api/public/chat/widget-1/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.sessionToken}` },
    });
    t.is(stop.status, 404);
    t.deepEqual(
      ((await (await read(other.sessionToken, '/api/public/conversations')).json()) as { conversations: unknown[] }).conversations,
      [],
    );
    const staff = await t.context.t.login('owner@demo.test');
    await t.context.t.http().get(`/api/ai/agents/${agent}/conversations/widget-1`).set('authorization', `Bearer ${staff}`).expect(404);
    // Nothing runs now: the resume GET is 204.
    t.is((await read(session.sessionToken, '/api/public/chat/widget-1/stream')).status, 204);
  },
);

test.serial(
  'the daily quota is exact under concurrency: 20 new messages at once at a quota of 5 run 5, the rest are 429 until UTC midnight',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'ok' }));
    const now = new Date('2026-11-28T21:30:00.000Z');
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const clocked = t.context.t.rebuild({ config: chatConfig({ gatewayUrl: peer.url }), clock: () => now }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => clocked.once('listening', resolve));
    t.teardown(() => new Promise<void>((resolve) => clocked.close(() => resolve())));
    const clockedBase = `http://127.0.0.1:${(clocked.address() as { port: number }).port}`;
    const { publishableKey } = await putChannel(t, { endUserMessagesPerDay: 5 });
    // The session is opened at the clocked app's time: its token expires by that clock.
    const opened = await fetch(`${clockedBase}/api/public/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ publishableKey }),
    });
    t.is(opened.status, 201);
    const session = (await opened.json()) as { sessionToken: string };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(clockedBase, session.sessionToken, `quota-${i}`, `question ${i}`)),
    );
    const bodies = await Promise.all(responses.map((response) => response.text()));
    t.is(responses.filter((response) => response.status === 200).length, 5);
    const refused = responses.filter((response) => response.status === 429);
    t.is(refused.length, 15);
    for (const response of refused) t.is(response.headers.get('retry-after'), String(2.5 * 3600));
    t.is(JSON.parse(bodies[responses.indexOf(refused[0]!)]!).errorCode, 'AI.END_USER_QUOTA_EXCEEDED');
    // Another end user has a quota of their own.
    const other = await anonymousSession(t, publishableKey);
    t.is((await post(base, other.sessionToken, 'other-quota', 'hello')).status, 200);
    await putChannel(t);
  },
);

test.serial(
  'with approvals by staff the end user sees the request and cannot answer it: 403 AI.APPROVAL_NOT_YOURS, still pending',
  async (t) => {
    const peer = await provider(t, (_request, index) =>
      index === 0 ? { kind: 'tool-call', toolName: 'list_documents', input: {} } : { kind: 'text', text: 'Here they are.' },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    await setTools(t, 'needs_approval');
    const { publishableKey } = await putChannel(t, { approvals: 'staff' });
    const session = await anonymousSession(t, publishableKey);
    const first = await publicChat(base, session.sessionToken, 'needs-staff', [userMessage('list the documents', 'a1')]);
    t.true(first.chunks.some((chunk) => chunk.type === 'tool-approval-request'));
    t.like(first.chunks.at(-1), { type: 'finish', finishReason: 'tool-calls' });
    const answer = answered(first.message!, true);
    const refused = await fetch(`${base}/api/public/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ id: 'needs-staff', messages: [userMessage('list the documents', 'a1'), answer] }),
    });
    t.is(refused.status, 403);
    t.is(((await refused.json()) as { errorCode: string }).errorCode, 'AI.APPROVAL_NOT_YOURS');
    const pending = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT count(*)::int AS n FROM tool_approvals WHERE end_user_id = ${session.endUser.id} AND answered_at IS NULL`);
    t.is(pending, 1);
    t.is(peer.requests.length, 1);
  },
);

test.serial('with approvals by the end user they answer in the stream as a staff user does', async (t) => {
  const peer = await provider(t, (_request, index) =>
    index === 0 ? { kind: 'tool-call', toolName: 'list_documents', input: {} } : { kind: 'text', text: 'Here they are.' },
  );
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await setTools(t, 'needs_approval');
  const { publishableKey } = await putChannel(t, { approvals: 'end_user' });
  const session = await anonymousSession(t, publishableKey);
  const first = await publicChat(base, session.sessionToken, 'self-approve', [userMessage('list the documents', 'b1')]);
  const second = await publicChat(base, session.sessionToken, 'self-approve', [
    userMessage('list the documents', 'b1'),
    answered(first.message!, true),
  ]);
  t.true(second.chunks.some((chunk) => chunk.type === 'tool-output-available'));
  t.is(textOf(second.message), 'Here they are.');
  await setTools(t, 'always_allow');
  await putChannel(t);
});

test.serial(
  'CORS: a preflight is answered for any origin; the request itself gets CORS headers only for an allowed origin, else 403',
  async (t) => {
    const { publishableKey } = await putChannel(t);
    const session = await anonymousSession(t, publishableKey);
    const preflight = await t.context.t
      .http()
      .options('/api/public/chat')
      .set('origin', 'https://anyone.example.org')
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'authorization, content-type');
    t.is(preflight.status, 204);
    t.is(preflight.headers['access-control-allow-origin'], 'https://anyone.example.org');
    t.regex(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    t.is(preflight.headers['access-control-allow-credentials'], undefined);
    const refused = await t.context.t
      .http()
      .get('/api/public/conversations')
      .set('origin', 'https://anyone.example.org')
      .set('authorization', `Bearer ${session.sessionToken}`);
    t.is(refused.status, 403);
    t.is(refused.body.errorCode, 'AI.ORIGIN_NOT_ALLOWED');
    t.is(refused.headers['access-control-allow-origin'], undefined);
    const allowed = await t.context.t
      .http()
      .get('/api/public/conversations')
      .set('origin', SHOP)
      .set('authorization', `Bearer ${session.sessionToken}`);
    t.is(allowed.status, 200);
    t.is(allowed.headers['access-control-allow-origin'], SHOP);
    t.regex(String(allowed.headers.vary), /Origin/);
  },
);
