import { deleteConversation } from '../../sql/chat-conversations.ts';
import { deleteTurns } from '../../sql/chat-turns.ts';
import { agentRoute } from '../agents/scope.ts';
import { defineRoute } from '../core/route.ts';
import { AI_PROVIDER_NOT_CONFIGURED } from '../metering/errors.ts';
import { TOOL_APPROVAL_REASON_TOO_LONG, TOOL_APPROVAL_UNKNOWN_ID } from '../tools/errors.ts';
import { ADMISSION_ERRORS } from './admission.ts';
import { answerChat } from './chat-turn.ts';
import { conversationPage, conversationsOf } from './conversations.ts';
import {
  AI_CONVERSATION_NOT_FOUND,
  AI_MESSAGE_ALREADY_SENT,
  AI_STREAM_UNAVAILABLE,
  AI_TURN_IN_PROGRESS,
  conversationNotFound,
} from './errors.ts';
import { ChatBody, ChatParams, ConversationDetail, ConversationList, ConversationPageQuery, ConversationParams } from './schemas.ts';

const tags = ['chat'];

/** The chat stream and the caller's conversations (docs/chat.md). */
export const chatRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ai/agents/:agentId/chat',
    summary: 'Talk to an agent: one turn as an AI SDK UI message stream',
    description:
      'Body as `DefaultChatTransport` sends it. Only the last message is read: a new user message, or approval answers. ' +
      'Answers `text/event-stream` with `x-vercel-ai-ui-message-stream: v1`; a failure after the stream started is an `error` chunk.',
    tags,
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', source: 'project' },
    ...agentRoute({ access: 'read' }),
    schemas: { params: ChatParams, body: ChatBody },
    errors: [
      AI_CONVERSATION_NOT_FOUND,
      TOOL_APPROVAL_UNKNOWN_ID,
      TOOL_APPROVAL_REASON_TOO_LONG,
      AI_PROVIDER_NOT_CONFIGURED,
      AI_TURN_IN_PROGRESS,
      AI_MESSAGE_ALREADY_SENT,
      AI_STREAM_UNAVAILABLE,
      ...ADMISSION_ERRORS,
    ],
    responses: {
      200: { description: 'The UI message stream (server-sent events)' },
    },
    handler: ({ deps, scope, agent, body, ctx }) => answerChat({ deps, ctx, scope, agent, body, approvals: 'owner' }),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/conversations',
    summary: "The caller's conversations with an agent, most recent first",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ChatParams },
    responses: { 200: { description: 'Conversations', schema: ConversationList } },
    handler: ({ deps, scope }) => conversationsOf(deps, scope),
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/conversations/:conversationId',
    summary: 'One conversation as UI messages, a page at a time (enough for useChat to resume)',
    description:
      'The newest `limit` messages (default 100) written before the message `before`, oldest first; `hasMore` when older ones remain.',
    tags,
    rateLimit: { limit: 120, windowMs: '1m', identifierType: 'userId', source: 'project' },
    ...agentRoute({ access: 'read' }),
    schemas: { params: ConversationParams, query: ConversationPageQuery },
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: {
      200: { description: 'The conversation', schema: ConversationDetail },
    },
    handler: ({ deps, scope, params, query }) => conversationPage(deps, scope, params.conversationId, query),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/conversations/:conversationId',
    summary: "Delete one of the caller's conversations",
    tags,
    ...agentRoute({ access: 'read' }),
    schemas: { params: ConversationParams },
    status: 204,
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: {
      204: { description: 'Deleted' },
    },
    handler: async ({ deps, scope, params }) => {
      if (!(await deleteConversation(deps.db, scope, params.conversationId))) throw conversationNotFound();
      await deleteTurns(deps.db, scope, params.conversationId);
    },
  }),
];
