import { findAgentInOrganization } from '../../sql/agents.ts';
import type { CodedError } from '../core/errors.ts';
import { countEndUserTurn } from './quotas.ts';
import { defineRoute } from '../core/route.ts';
import { AI_PROVIDER_NOT_CONFIGURED } from '../metering/errors.ts';
import { ADMISSION_ERRORS } from '../chat/admission.ts';
import { forEndUsers } from '../analytics/budget/errors.ts';
import { answerChat, type ChatCall } from '../chat/chat-turn.ts';
import { AI_CONVERSATION_NOT_FOUND, AI_MESSAGE_ALREADY_SENT, AI_STREAM_UNAVAILABLE, AI_TURN_IN_PROGRESS } from '../chat/errors.ts';
import { conversationPage, conversationsOf, runningTurnOf } from '../chat/conversations.ts';
import { chatTurns } from '../chat/running-turns.ts';
import { ChatBody, ConversationDetail, ConversationList, ConversationPageQuery } from '../chat/schemas.ts';
import { answerTurnStream } from '../chat/turn-claim.ts';
import { AI_APPROVAL_NOT_YOURS, TOOL_APPROVAL_REASON_TOO_LONG, TOOL_APPROVAL_UNKNOWN_ID } from '../tools/errors.ts';
import { StrictObject } from '../core/schemas.ts';
import { Type } from '@sinclair/typebox';
import {
  AI_END_USER_QUOTA_EXCEEDED,
  AI_END_USER_NOT_VERIFIED,
  channelNotFound,
  AI_CHANNEL_NOT_FOUND,
  AI_ORIGIN_NOT_ALLOWED,
} from './errors.ts';
import { SessionBody, SessionSchema } from './schemas.ts';
import { openSession } from './sessions.ts';
import { CHANNEL_SESSION } from './session-auth.ts';
import { CONVERSATION_ID_PATTERN } from '../chat/schemas.ts';

const tags = ['web channel'];
const endUser = { endUser: CHANNEL_SESSION } as const;
const PublicConversationParams = StrictObject({
  conversationId: Type.String({ pattern: CONVERSATION_ID_PATTERN, errorMessage: 'must be 1 to 128 letters, digits, _ or -' }),
});

/** The public reads (list, read, resume): 120 a minute per end user, as a staff user's conversation reads. */
const READ_LIMIT = { limit: 120, windowMs: '1m', identifierType: 'userId', source: 'project' } as const;

/** `answerChat` for an end user: a refused budget is answered without its figures (docs/channel.md). */
async function answerChatAsEndUser(call: ChatCall) {
  try {
    return await answerChat(call);
  } catch (error) {
    throw forEndUsers(error);
  }
}

/** What an agent's website chat calls (docs/channel.md): a session, then the one chat of docs/chat.md as the end user. */
export const publicRoutes = [
  defineRoute({
    method: 'POST',
    path: '/public/sessions',
    summary: "Open an end user's session on an agent's web channel",
    description:
      'No credentials: the publishable key names the channel. A page must come from one of its `allowedOrigins` (or the ' +
      "service's own); without an `Origin` (a server), only a verified `user` or a `client` token is taken. The " +
      '`sessionToken` is accepted by the `/api/public/...` routes only.',
    tags,
    auth: 'public',
    rateLimit: { limit: 20, windowMs: '1m', identifierType: 'ip', source: 'project' },
    schemas: { body: SessionBody },
    status: 201,
    errors: [AI_CHANNEL_NOT_FOUND, AI_ORIGIN_NOT_ALLOWED, AI_END_USER_NOT_VERIFIED],
    responses: { 201: { description: 'The session', schema: SessionSchema } },
    handler: ({ deps, ctx, body }) => openSession(deps, ctx, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/public/chat',
    summary: "Talk to a channel's agent as its end user: one turn as an AI SDK UI message stream",
    description:
      "The chat of `POST /api/ai/agents/:agentId/chat`, on the session's channel and in the end user's own conversations. " +
      'At most `endUserMessagesPerDay` turns per end user and UTC day, whatever starts them (a new message, a regenerate, ' +
      'approval answers; 429 `AI.END_USER_QUOTA_EXCEEDED`, ' +
      "`Retry-After` the seconds to the next UTC midnight), and, in a business, at most its plan's " +
      '`maxEndUserMessagesPerMonth` over all its channels per UTC month (the same 429, `Retry-After` to the next UTC month). With the channel\'s `approvals: "staff"`, an approval answer ' +
      'from the end user is 403 `AI.APPROVAL_NOT_YOURS`.',
    tags,
    auth: endUser,
    rateLimit: { limit: 10, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { body: ChatBody },
    errors: [
      ...CHANNEL_SESSION.errors,
      AI_CONVERSATION_NOT_FOUND,
      TOOL_APPROVAL_UNKNOWN_ID,
      TOOL_APPROVAL_REASON_TOO_LONG,
      AI_APPROVAL_NOT_YOURS,
      AI_PROVIDER_NOT_CONFIGURED,
      AI_TURN_IN_PROGRESS,
      AI_MESSAGE_ALREADY_SENT,
      AI_STREAM_UNAVAILABLE,
      AI_END_USER_QUOTA_EXCEEDED,
      ...ADMISSION_ERRORS,
    ],
    responses: { 200: { description: 'The UI message stream (server-sent events)' } },
    handler: async ({ deps, ctx, auth, body }) => {
      const { scope, channel } = auth;
      const agent = await findAgentInOrganization(deps.db, scope.organizationId, scope.agentId);
      if (!agent) throw channelNotFound();
      return answerChatAsEndUser({
        deps,
        ctx,
        scope,
        agent,
        body,
        approvals: channel.approvals === 'staff' ? 'staff' : 'owner',
        // Every turn the end user starts counts: a new message, a regenerate, approval answers.
        beforeTurn: async () => {
          try {
            await countEndUserTurn(deps, scope, channel.endUserMessagesPerDay);
          } catch (error) {
            const wait = (error as CodedError).metadata?.retryAfterSeconds;
            if (typeof wait === 'number') ctx.set('Retry-After', String(wait));
            throw error;
          }
        },
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/public/chat/:conversationId/stream',
    summary: "Resume the running turn of one of the end user's conversations",
    description: 'As `GET /api/ai/agents/:agentId/chat/:conversationId/stream`: 200 while a turn runs, 204 otherwise.',
    tags,
    auth: endUser,
    rateLimit: READ_LIMIT,
    schemas: { params: PublicConversationParams },
    errors: [...CHANNEL_SESSION.errors, AI_CONVERSATION_NOT_FOUND, AI_STREAM_UNAVAILABLE],
    responses: {
      200: { description: 'The running turn’s UI message stream (server-sent events)' },
      204: { description: 'No turn of this conversation runs' },
    },
    handler: async ({ deps, ctx, auth, params }) => {
      const turn = await runningTurnOf(deps, auth.scope, params.conversationId);
      if (!turn) return null;
      return answerTurnStream(ctx, chatTurns(deps), turn.id, () => null);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/public/chat/:conversationId/stop',
    summary: "Stop the running turn of one of the end user's conversations",
    tags,
    auth: endUser,
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', source: 'project' },
    schemas: { params: PublicConversationParams },
    status: 204,
    errors: [...CHANNEL_SESSION.errors, AI_CONVERSATION_NOT_FOUND],
    responses: { 204: { description: 'Stopped, or nothing ran' } },
    handler: async ({ deps, auth, params }) => {
      const turn = await runningTurnOf(deps, auth.scope, params.conversationId);
      if (turn) await chatTurns(deps).stop(turn.id);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/public/conversations',
    summary: "The end user's conversations, most recent first",
    tags,
    auth: endUser,
    rateLimit: READ_LIMIT,
    errors: [...CHANNEL_SESSION.errors],
    responses: { 200: { description: 'Conversations', schema: ConversationList } },
    handler: ({ deps, auth }) => conversationsOf(deps, auth.scope),
  }),
  defineRoute({
    method: 'GET',
    path: '/public/conversations/:conversationId',
    summary: "One of the end user's conversations as UI messages, a page at a time",
    tags,
    auth: endUser,
    rateLimit: READ_LIMIT,
    schemas: { params: PublicConversationParams, query: ConversationPageQuery },
    errors: [...CHANNEL_SESSION.errors, AI_CONVERSATION_NOT_FOUND],
    responses: { 200: { description: 'The conversation', schema: ConversationDetail } },
    handler: ({ deps, auth, params, query }) => conversationPage(deps, auth.scope, params.conversationId, query),
  }),
];
