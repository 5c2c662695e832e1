import anyTest from 'ava';
import { answerToolApproval, requestToolApproval } from '../../app/tools/approvals.ts';
import { CodedError } from '../../app/core/errors.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { type Ctx, MEMBER, OWNER, RESEARCH, SUPPORT } from './support.ts';

const test = withTestApp(anyTest);

/** Whose approval: a user of the demo agency and one of its agents. */
const of = (userId: string, agentId = SUPPORT) => ({ scope: { organizationId: ORGANIZATIONS.demoAgency.id, agentId, userId } });

const pending = (t: Ctx, userId = OWNER.id, agentId = SUPPORT) =>
  requestToolApproval(t.context.t.db.pool, {
    ...of(userId, agentId),
    toolName: 'send_email',
    toolCallId: 'call_1',
    input: { to: 'a@b.test' },
  });

/** The coded error a rejected answer throws, checked for status and both messages. */
async function rejection(t: Ctx, answer: Promise<unknown>) {
  const error = await t.throwsAsync(answer, { instanceOf: CodedError });
  t.is(error?.status, 400);
  t.true((error?.messages.en.length ?? 0) > 0 && (error?.messages.es.length ?? 0) > 0);
  return error?.errorCode;
}

test('a pending approval is answered once and returns the paused tool call', async (t) => {
  const approvalId = await pending(t);
  const answered = await answerToolApproval(t.context.t.db.pool, { ...of(OWNER.id, SUPPORT), approvalId, approved: true });
  t.like(answered, {
    id: approvalId,
    toolName: 'send_email',
    toolCallId: 'call_1',
    approved: true,
    reason: null,
    input: { to: 'a@b.test' },
  });
});

test('a replayed approval id is TOOL_APPROVAL_UNKNOWN_ID', async (t) => {
  const approvalId = await pending(t);
  const db = t.context.t.db.pool;
  await answerToolApproval(db, { ...of(OWNER.id, SUPPORT), approvalId, approved: false, reason: 'not now' });
  t.is(await rejection(t, answerToolApproval(db, { ...of(OWNER.id, SUPPORT), approvalId, approved: true })), 'TOOL_APPROVAL_UNKNOWN_ID');
});

test("another user's approval id is unknown and stays answerable by its own user", async (t) => {
  const approvalId = await pending(t);
  const db = t.context.t.db.pool;
  t.is(await rejection(t, answerToolApproval(db, { ...of(MEMBER.id, SUPPORT), approvalId, approved: true })), 'TOOL_APPROVAL_UNKNOWN_ID');
  t.is(await rejection(t, answerToolApproval(db, { ...of(OWNER.id, RESEARCH), approvalId, approved: true })), 'TOOL_APPROVAL_UNKNOWN_ID');
  const answered = await answerToolApproval(db, { ...of(OWNER.id, SUPPORT), approvalId, approved: true });
  t.is(answered.id, approvalId);
});

test('an id that matches nothing, or is not a UUID, is TOOL_APPROVAL_UNKNOWN_ID', async (t) => {
  const db = t.context.t.db.pool;
  for (const approvalId of ['01900000-0000-7000-8000-00000000dead', 'approval-1', '']) {
    t.is(await rejection(t, answerToolApproval(db, { ...of(OWNER.id, SUPPORT), approvalId, approved: true })), 'TOOL_APPROVAL_UNKNOWN_ID');
  }
});

test('a reason over 2000 characters is TOOL_APPROVAL_REASON_TOO_LONG and does not use up the approval', async (t) => {
  const approvalId = await pending(t);
  const db = t.context.t.db.pool;
  const tooLong = { ...of(OWNER.id, SUPPORT), approvalId, approved: false, reason: 'r'.repeat(2001) };
  t.is(await rejection(t, answerToolApproval(db, tooLong)), 'TOOL_APPROVAL_REASON_TOO_LONG');
  const answered = await answerToolApproval(db, { ...tooLong, reason: 'r'.repeat(2000) });
  t.is(answered.reason, 'r'.repeat(2000));
});

test('the reason limit counts characters, not UTF-16 units', async (t) => {
  const approvalId = await pending(t);
  const reason = '🙂'.repeat(2000);
  const answered = await answerToolApproval(t.context.t.db.pool, {
    ...of(OWNER.id, SUPPORT),
    approvalId,
    approved: false,
    reason,
  });
  t.is(answered.reason, reason);
});

test('of two concurrent answers to one approval exactly one wins', async (t) => {
  const approvalId = await pending(t, MEMBER.id);
  const db = t.context.t.db.pool;
  const answer = () => answerToolApproval(db, { ...of(MEMBER.id, SUPPORT), approvalId, approved: true });
  const outcomes = await Promise.allSettled([answer(), answer(), answer()]);
  t.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
});

test('an approval bound to a conversation is unknown in another conversation', async (t) => {
  const db = t.context.t.db.pool;
  const conversationId = '01900000-0000-7000-8000-0000000c0001';
  const approvalId = await requestToolApproval(db, { ...of(OWNER.id, SUPPORT), conversationId, toolName: 'send_email' });
  const elsewhere = {
    ...of(OWNER.id, SUPPORT),
    conversationId: '01900000-0000-7000-8000-0000000c0002',
    approvalId,
    approved: true,
  };
  t.is(await rejection(t, answerToolApproval(db, elsewhere)), 'TOOL_APPROVAL_UNKNOWN_ID');
  t.is((await answerToolApproval(db, { ...elsewhere, conversationId })).id, approvalId);
});
