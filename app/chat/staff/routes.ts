import { listMessagePage } from '../../../sql/chat-conversations.ts';
import { findTranscript, listTranscripts } from '../../../sql/end-user-conversations.ts';
import { answerStaffApproval, findStaffApproval, listStaffApprovals } from '../../../sql/staff-approvals.ts';
import { AgentIdParams } from '../../agents/schemas.ts';
import { agentRoute } from '../../agents/scope.ts';
import { defineRoute } from '../../core/route.ts';
import { AI_APPROVAL_ALREADY_ANSWERED, AI_APPROVAL_NOT_FOUND, approvalAlreadyAnswered, approvalNotFound } from '../../tools/errors.ts';
import { AI_CONVERSATION_NOT_FOUND, conversationNotFound } from '../errors.ts';
import { CONVERSATION_PAGE_MAX_BYTES } from '../conversations.ts';
import { continueConversation } from './continuation.ts';
import {
  StaffAnswerBody,
  StaffApprovalList,
  StaffApprovalParams,
  StaffApprovalQuery,
  StaffApprovalSchema,
  TranscriptDetail,
  TranscriptList,
  TranscriptParams,
  TranscriptQuery,
} from './schemas.ts';
import { ORGANIZATION_SCOPE } from '../../core/route-scope.ts';

const tags = ['approvals'];
/** Messages a transcript answers: the newest ones. */
const TRANSCRIPT_MESSAGES = 200;

/** Staff in the loop (docs/chat.md, "Who answers an approval"): the approvals inbox and end users' transcripts. */
export const staffRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ai/approvals',
    summary: "The organization's approvals of end users' turns, newest first",
    description:
      '`status` pending (default) or answered; `limit` 1-100 (default 20); `before`: the id of the last approval of the page before.',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy: { subject: 'ai.agent', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    schemas: { query: StaffApprovalQuery },
    responses: { 200: { description: 'A page of approvals', schema: StaffApprovalList } },
    handler: async ({ deps, scope, query }) => {
      const limit = query.limit ?? 20;
      const rows = await listStaffApprovals(deps.db, scope.organizationId, {
        status: query.status ?? 'pending',
        limit,
        before: query.before,
      });
      return { approvals: rows.slice(0, limit), hasMore: rows.length > limit };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/ai/approvals/:approvalId',
    summary: "Answer an approval of an end user's turn; the conversation then goes on on the server",
    description:
      'Single use: of two answers at once one is 200 and the other 409 `AI.APPROVAL_ALREADY_ANSWERED`. Once no approval of ' +
      "the turn is pending, the end user's conversation goes on as a durable turn (the end user follows it with the resume GET).",
    tags,
    auth: 'jwt',
    principal: 'user',
    // Whoever may answer approvals: `update` on `ai.approval` (business and agency members) or on `ai.agent`.
    policy: [
      { subject: 'ai.approval', action: 'update' },
      { subject: 'ai.agent', action: 'update' },
    ],
    scope: ORGANIZATION_SCOPE,
    schemas: { params: StaffApprovalParams, body: StaffAnswerBody },
    errors: [AI_APPROVAL_NOT_FOUND, AI_APPROVAL_ALREADY_ANSWERED],
    responses: { 200: { description: 'The approval as answered', schema: StaffApprovalSchema } },
    handler: async ({ deps, scope, params, body }) => {
      const found = await findStaffApproval(deps.db, scope.organizationId, params.approvalId);
      if (!found) throw approvalNotFound();
      const reason = body.reason ?? null;
      const answer = { approvalId: found.id, approved: body.approved, reason, answeredBy: scope.userId, now: deps.clock() };
      const conversationId = await answerStaffApproval(deps.db, answer);
      if (conversationId === null) throw approvalAlreadyAnswered();
      // The conversation goes on by itself once the answer is stored (its turn belongs to no request).
      void continueConversation(deps, conversationId);
      return (await findStaffApproval(deps.db, scope.organizationId, found.id))!;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/end-user-conversations',
    summary: "The agent's end users' conversations, most recently active first",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: AgentIdParams, query: TranscriptQuery },
    responses: { 200: { description: 'A page of conversations', schema: TranscriptList } },
    handler: async ({ deps, scope, query }) => {
      const limit = query.limit ?? 20;
      const rows = await listTranscripts(deps.db, scope.agentId, { limit, before: query.before });
      return { conversations: rows.slice(0, limit), hasMore: rows.length > limit };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/end-user-conversations/:conversationId',
    summary: "One end user's conversation with the agent (its newest 200 messages), read-only",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: TranscriptParams },
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: { 200: { description: 'The conversation', schema: TranscriptDetail } },
    handler: async ({ deps, scope, params }) => {
      const transcript = await findTranscript(deps.db, scope.agentId, params.conversationId);
      if (!transcript) throw conversationNotFound();
      const page = await listMessagePage(deps.db, transcript.id, {
        limit: TRANSCRIPT_MESSAGES,
        before: undefined,
        maxBytes: CONVERSATION_PAGE_MAX_BYTES,
      });
      return { id: transcript.id, endUser: transcript.endUser, title: transcript.title, messages: page.messages };
    },
  }),
];
