import { setTimeout as delay } from 'node:timers/promises';
import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { sql } from 'slonik';
import { z } from 'zod';
import { expireApprovals } from '../../app/chat/staff/expiry.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { DEFAULT_TITLE } from '../helpers/openai-peer.ts';
import { chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { anonymousSession, putChannel, SHOP, type T } from './support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.support.id;

type Approval = {
  id: string;
  conversationId: string;
  status: string;
  approved: boolean | null;
  reason: string | null;
  answeredBy: string | null;
};

async function staff(t: T, email = 'owner@demo.test') {
  return `Bearer ${await t.context.t.login(email)}`;
}

/** A staff answer sent to the app at `base` (the one whose model is the scripted peer: the continuation runs there). */
async function answer(base: string, auth: string, approvalId: string, body: object) {
  const response = await fetch(`${base}/api/ai/approvals/${approvalId}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function setTools(t: T, permissionStatus: string) {
  await t.context.t
    .http()
    .put(`/api/ai/agents/${agent}/tools`)
    .set('authorization', await staff(t))
    .send({ tools: [{ toolName: 'list_documents', permissionStatus, providerKey: 'knowledge' }] })
    .expect(200);
}

/** An end user asks for the documents; the turn ends waiting for the staff's approval. */
async function pendingApproval(t: T, base: string, chatId: string) {
  const { publishableKey } = await putChannel(t, { approvals: 'staff' });
  const session = await anonymousSession(t, publishableKey);
  const response = await fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify({ id: chatId, messages: [userMessage('list the documents', `u-${chatId}`)] }),
  });
  t.regex(await response.text(), /"type":"tool-approval-request"/);
  return session;
}

/** The end user's conversation once its last answer is no longer waiting (the server's continuation is a turn of its own). */
async function settled(base: string, sessionToken: string, chatId: string): Promise<UIMessage[]> {
  for (let tries = 0; tries < 500; tries += 1) {
    const stream = await fetch(`${base}/api/public/chat/${chatId}/stream`, { headers: { authorization: `Bearer ${sessionToken}` } });
    await stream.text();
    if (stream.status === 204) {
      const read = await fetch(`${base}/api/public/conversations/${chatId}`, { headers: { authorization: `Bearer ${sessionToken}` } });
      const messages = ((await read.json()) as { messages: UIMessage[] }).messages;
      const last = messages.at(-1);
      if (last?.role === 'assistant' && !last.parts.some((part) => (part as { state?: string }).state === 'approval-requested'))
        return messages;
    }
    await delay(10); // waits on the service's own turn, which the resume GET reports as running
  }
  throw new Error('the conversation did not go on');
}

const toolPart = (messages: UIMessage[]) =>
  messages.at(-1)!.parts.find((part) => part.type === 'tool-list_documents') as Record<string, unknown>;
const textOf = (messages: UIMessage[]) =>
  messages
    .at(-1)!
    .parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('');

test.serial(
  'staff see the pending approval of an end user turn, answer it once, and the turn goes on by itself on the server',
  async (t) => {
    const peer = await provider(t, (request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { kind: 'text', text: 'Here are the documents.' }
        : { kind: 'tool-call', toolName: 'list_documents', input: {} },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    await setTools(t, 'needs_approval');
    const session = await pendingApproval(t, base, 'staff-yes');
    const owner = await staff(t);
    const inbox = await t.context.t.http().get('/api/ai/approvals').set('authorization', owner).expect(200);
    const approval = (inbox.body.approvals as (Approval & Record<string, unknown>)[]).find((item) => item.status === 'pending')!;
    t.like(approval, { agentId: agent, toolName: 'list_documents', status: 'pending', approved: null, answeredBy: null });
    t.like(approval.endUser as object, { id: session.endUser.id, verified: false, externalId: null });
    t.deepEqual(approval.input, {});

    // A member may read the inbox but not answer; another agency sees none of it.
    const member = await staff(t, 'member@demo.test');
    await t.context.t.http().post(`/api/ai/approvals/${approval.id}`).set('authorization', member).send({ approved: true }).expect(403);
    const other = await staff(t, 'owner@other.test');
    t.deepEqual((await t.context.t.http().get('/api/ai/approvals').set('authorization', other).expect(200)).body.approvals, []);
    const foreign = await t.context.t.http().post(`/api/ai/approvals/${approval.id}`).set('authorization', other).send({ approved: true });
    t.is(foreign.status, 404);
    t.is(foreign.body.errorCode, 'AI.APPROVAL_NOT_FOUND');

    // Two staff answering at once: one 200, one 409.
    const answers = await Promise.all([
      answer(base, owner, approval.id, { approved: true }),
      answer(base, owner, approval.id, { approved: false, reason: 'no' }),
    ]);
    t.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
    const won = answers.find((answer) => answer.status === 200)!;
    t.like(won.body, { id: approval.id, status: 'answered' });
    t.is(answers.find((answer) => answer.status === 409)!.body.errorCode, 'AI.APPROVAL_ALREADY_ANSWERED');

    const messages = await settled(base, session.sessionToken, 'staff-yes');
    if (won.body.approved) {
      t.like(toolPart(messages), { state: 'output-available' });
      t.is(textOf(messages), 'Here are the documents.');
    } else {
      t.like(toolPart(messages), { state: 'output-denied' });
    }
    const answered = await t.context.t.http().get('/api/ai/approvals?status=answered').set('authorization', owner).expect(200);
    t.like(answered.body.approvals[0], { id: approval.id, status: 'answered' });
    t.truthy(answered.body.approvals[0].answeredBy);
  },
);

test.serial('a denial reason reaches the model, and the end user reads the answer', async (t) => {
  const peer = await provider(t, (request) => {
    const tool = request.messages.find((message) => message.role === 'tool');
    return tool
      ? { kind: 'text', text: `Denied: ${JSON.stringify(tool.content)}` }
      : { kind: 'tool-call', toolName: 'list_documents', input: {} };
  });
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await setTools(t, 'needs_approval');
  const session = await pendingApproval(t, base, 'staff-no');
  const owner = await staff(t);
  const inbox = await t.context.t.http().get('/api/ai/approvals').set('authorization', owner).expect(200);
  const approval = (inbox.body.approvals as Approval[])[0]!;
  t.is((await answer(base, owner, approval.id, { approved: false, reason: 'Not for this customer' })).status, 200);
  const messages = await settled(base, session.sessionToken, 'staff-no');
  t.like(toolPart(messages), { state: 'output-denied' });
  t.regex(textOf(messages), /Not for this customer/);
});

test.serial(
  'an approval left pending past AI_APPROVAL_TTL_MS expires: the tool ends output-denied "expired" and the model answers that',
  async (t) => {
    const peer = await provider(t, (request) => {
      const tool = request.messages.find((message) => message.role === 'tool');
      return tool
        ? { kind: 'text', text: `Sorry: ${JSON.stringify(tool.content)}` }
        : { kind: 'tool-call', toolName: 'list_documents', input: {} };
    });
    const config = chatConfig({ gatewayUrl: peer.url });
    const base = await serve(t, config);
    await setTools(t, 'needs_approval');
    const session = await pendingApproval(t, base, 'staff-expired');
    // Nothing expires before its time.
    t.is(await expireApprovals(t.context.t.rebuild({ config }).deps), 0);
    const later = new Date(Date.now() + config.ai.approvalTtlMs + 60_000);
    t.is(await expireApprovals(t.context.t.rebuild({ config, clock: () => later }).deps), 1);
    const messages = await settled(base, session.sessionToken, 'staff-expired');
    t.like(toolPart(messages), { state: 'output-denied' });
    t.regex(textOf(messages), /expired/);
    const answered = await t.context.t
      .http()
      .get('/api/ai/approvals?status=answered')
      .set('authorization', await staff(t))
      .expect(200);
    t.like(answered.body.approvals[0], { status: 'answered', approved: false, reason: 'expired', answeredBy: null });
  },
);

test.serial('a pending approval mails the staff who can answer it, at most once per conversation per 10 minutes', async (t) => {
  const peer = await provider(t, () => ({ kind: 'tool-call', toolName: 'list_documents', input: {} }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await setTools(t, 'needs_approval');
  const mails = () =>
    t.context.t.db.pool.anyFirst(sql.type(z.strictObject({ recipient: z.string() }))`
      SELECT recipient FROM notification_outbox WHERE template = 'approval-pending' ORDER BY created_at`);
  const before = (await mails()).length;
  const session = await pendingApproval(t, base, 'mailed');
  // A second request of approval in the same conversation, minutes later: no second mail.
  const again = await fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify({ id: 'mailed', messages: [userMessage('list them again', 'u-mailed-2')] }),
  });
  t.regex(await again.text(), /tool-approval-request/);
  const sent = (await mails()).slice(before);
  // The demo agency's one user with `update` on `ai.agent`, once.
  t.deepEqual(sent, ['owner@demo.test']);
});

test.serial("staff read the agent's end users' conversations, read-only, and another agency cannot", async (t) => {
  const peer = await provider(t, () => ({ kind: 'text', text: 'Hello from the agent.' }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
  await setTools(t, 'always_allow');
  const { publishableKey } = await putChannel(t);
  const session = await anonymousSession(t, publishableKey);
  await (
    await fetch(`${base}/api/public/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json', origin: SHOP },
      body: JSON.stringify({ id: 'transcript', messages: [userMessage('Where is my parcel?', 'u-transcript')] }),
    })
  ).text();
  const owner = await staff(t);
  const list = await t.context.t
    .http()
    .get(`/api/ai/agents/${agent}/end-user-conversations?limit=100`)
    .set('authorization', owner)
    .expect(200);
  const item = (list.body.conversations as { id: string; title: string; messageCount: number; endUser: { id: string } }[]).find(
    (conversation) => conversation.endUser.id === session.endUser.id,
  )!;
  t.like(item, { title: DEFAULT_TITLE, messageCount: 2 });
  const detail = await t.context.t
    .http()
    .get(`/api/ai/agents/${agent}/end-user-conversations/${item.id}`)
    .set('authorization', owner)
    .expect(200);
  t.deepEqual(
    (detail.body.messages as UIMessage[]).map((message) => message.role),
    ['user', 'assistant'],
  );
  const other = await staff(t, 'owner@other.test');
  t.is((await t.context.t.http().get(`/api/ai/agents/${agent}/end-user-conversations/${item.id}`).set('authorization', other)).status, 404);
  t.is(
    (await t.context.t.http().get(`/api/ai/agents/${AGENTS.research.id}/end-user-conversations/${item.id}`).set('authorization', owner))
      .body.errorCode,
    'AI.CONVERSATION_NOT_FOUND',
  );

  // Usage by end user: the end user's turn, its tokens and cost.
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 3_600_000).toISOString();
  const usage = await t.context.t.http().get(`/api/ai/org-usage/end-users?from=${from}&to=${to}`).set('authorization', owner).expect(200);
  const row = (usage.body.endUsers as { endUserId: string; turns: number; totalTokens: number; verified: boolean }[]).find(
    (entry) => entry.endUserId === session.endUser.id,
  );
  t.like(row, { turns: 1, verified: false });
  t.true((row?.totalTokens ?? 0) > 0);
  t.is((await t.context.t.http().get(`/api/ai/org-usage/end-users?from=${to}&to=${from}`).set('authorization', owner)).status, 400);
  t.is(
    (await t.context.t.http().get(`/api/ai/org-usage/end-users?from=${from}&to=${to}&limit=101`).set('authorization', owner)).status,
    400,
  );
});
