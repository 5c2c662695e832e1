import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { ensureConversation, saveMessage } from '../../sql/chat-conversations.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { OWNER, SUPPORT } from '../tools/support.ts';
import { agentPath, user } from './support.ts';

const test = withTestApp(anyTest);

const text = (value: string) => [{ type: 'text', text: value }];
const casesOf = (agentId: string) => `${agentPath(agentId)}/eval-cases`;

test('a written case is stored with its messages and expectations, listed and deleted', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Cases' }).expect(201);
  const created = await owner
    .post(casesOf(agent.id), {
      name: 'Refunds',
      messages: [
        { role: 'user', parts: text('Hi') },
        { role: 'assistant', parts: text('Hello! How can I help?') },
        { role: 'user', parts: text('How long do refunds take?') },
      ],
      expect: { contains: ['5 days'], judge: 'Gives a number of days.' },
    })
    .expect(201);
  t.like(created.body, { name: 'Refunds', expect: { contains: ['5 days'], judge: 'Gives a number of days.' } });
  t.deepEqual(
    created.body.messages.map((message: { role: string }) => message.role),
    ['user', 'assistant', 'user'],
  );
  const listed = await owner.get(casesOf(agent.id)).expect(200);
  t.deepEqual(listed.body, { cases: [created.body] });
  await owner.delete(`${casesOf(agent.id)}/${created.body.id}`).expect(204);
  const again = await owner.delete(`${casesOf(agent.id)}/${created.body.id}`).expect(404);
  t.is(again.body.errorCode, 'AI.EVAL_CASE_NOT_FOUND');
  t.deepEqual((await owner.get(casesOf(agent.id)).expect(200)).body, { cases: [] });
});

test('a case must end with a user message, hold an expectation and give messages or a conversation, not both', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const endsWithAnswer = await owner
    .post(casesOf(SUPPORT), {
      name: 'x',
      messages: [
        { role: 'user', parts: text('Hi') },
        { role: 'assistant', parts: text('Hey') },
      ],
      expect: { noToolCalls: true },
    })
    .expect(400);
  t.regex(JSON.stringify(endsWithAnswer.body), /ends with a user message/);
  await owner.post(casesOf(SUPPORT), { name: 'x', messages: [{ role: 'user', parts: text('Hi') }], expect: {} }).expect(400);
  await owner.post(casesOf(SUPPORT), { name: 'x', expect: { noToolCalls: true } }).expect(400);
  await owner
    .post(casesOf(SUPPORT), {
      name: 'x',
      messages: [{ role: 'user', parts: text('Hi') }],
      fromConversationId: 'c1',
      expect: { noToolCalls: true },
    })
    .expect(400);
  await owner
    .post(casesOf(SUPPORT), { name: 'x', messages: [{ role: 'tool', parts: text('Hi') }], expect: { noToolCalls: true } })
    .expect(400);
  t.deepEqual((await owner.get(casesOf(SUPPORT)).expect(200)).body, { cases: [] });
});

test('a case from a conversation takes its words up to its last user message, without tool parts', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'From chat' }).expect(201);
  const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: agent.id, userId: OWNER.id };
  const db = t.context.t.db.pool;
  const conversation = await ensureConversation(db, scope, { id: uuidv7(), clientId: 'chat-1', title: 'Refunds', now: new Date() });
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
  await saveMessage(db, conversation.id, { id: uuidv7(), role: 'user', parts: text('Hi') }, at(1));
  await saveMessage(
    db,
    conversation.id,
    {
      id: uuidv7(),
      role: 'assistant',
      parts: [
        { type: 'tool-list_documents', toolCallId: 'c1', state: 'output-available', input: {}, output: {} },
        ...text('We have a refund policy.'),
      ],
    },
    at(2),
  );
  await saveMessage(db, conversation.id, { id: uuidv7(), role: 'user', parts: text('How long do refunds take?') }, at(3));
  await saveMessage(db, conversation.id, { id: uuidv7(), role: 'assistant', parts: text('Five days.') }, at(4));
  const created = await owner
    .post(casesOf(agent.id), { name: 'From chat', fromConversationId: 'chat-1', expect: { contains: ['five'] } })
    .expect(201);
  t.deepEqual(
    created.body.messages.map((message: { role: string; parts: unknown[] }) => [message.role, message.parts]),
    [
      ['user', text('Hi')],
      ['assistant', text('We have a refund policy.')],
      ['user', text('How long do refunds take?')],
    ],
  );
  const other = await user(t.context.t, 'owner@other.test');
  const foreign = await other
    .post(casesOf(agent.id), { name: 'x', fromConversationId: 'chat-1', expect: { noToolCalls: true } })
    .expect(404);
  t.is(foreign.body.errorCode, 'AI.AGENT_NOT_FOUND');
  const missing = await owner
    .post(casesOf(agent.id), { name: 'x', fromConversationId: 'chat-9', expect: { noToolCalls: true } })
    .expect(404);
  t.is(missing.body.errorCode, 'AI.CONVERSATION_NOT_FOUND');
});

test('an agent holds at most 200 cases: concurrent adds at the cap make exactly 200, the rest are 409 AI.EVAL_CASE_LIMIT_REACHED', async (t) => {
  const owner = await user(t.context.t, 'owner@demo.test');
  const { body: agent } = await owner.post('/api/ai/agents', { name: 'Full' }).expect(201);
  const messages = JSON.stringify([{ id: 'm', role: 'user', parts: text('Hi') }]);
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO agent_eval_cases (id, organization_id, agent_id, name, messages, expect, created_at)
    SELECT id, ${ORGANIZATIONS.demoAgency.id}, ${agent.id}, 'Case', ${messages}::jsonb, '{"noToolCalls": true}'::jsonb, now()
    FROM unnest(${sql.array(
      Array.from({ length: 197 }, () => uuidv7()),
      'uuid',
    )}) id`);
  const body = { name: 'One more', messages: [{ role: 'user', parts: text('Hi') }], expect: { noToolCalls: true } };
  const answers = await Promise.all(Array.from({ length: 6 }, () => owner.post(casesOf(agent.id), body)));
  t.deepEqual(answers.map((answer) => answer.status).sort(), [201, 201, 201, 409, 409, 409]);
  t.like(answers.find((answer) => answer.status === 409)!.body, { errorCode: 'AI.EVAL_CASE_LIMIT_REACHED', metadata: { limit: 200 } });
  t.is((await owner.get(casesOf(agent.id)).expect(200)).body.cases.length, 200);
});

test('a user without update on agents cannot add a case', async (t) => {
  const member = await user(t.context.t, 'member@demo.test');
  const added = await member.post(casesOf(SUPPORT), {
    name: 'x',
    messages: [{ role: 'user', parts: text('Hi') }],
    expect: { noToolCalls: true },
  });
  t.is(added.status, 403);
});
