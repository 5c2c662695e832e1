import { Readable } from 'node:stream';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import {
  deleteConversation,
  findConversation,
  findConversationHistory,
  listConversations,
  listMessagePage,
} from '../../sql/chat-conversations.ts';
import { deleteTurns } from '../../sql/chat-turns.ts';
import { listAgentServerConnections } from '../../sql/agent-mcp-server-connections.ts';
import { findProviderKey } from '../../sql/provider-keys.ts';
import { AGENT_SCOPE } from '../agents/scope.ts';
import type { AccessClaims } from '../core/route.ts';
import { defineRoute } from '../core/route.ts';
import { serviceUnavailable } from '../core/errors.ts';
import { offeredToolsOf } from '../tools/resolution.ts';
import {
  AI_CONVERSATION_NOT_FOUND,
  AI_MESSAGE_ALREADY_SENT,
  AI_PROVIDER_NOT_CONFIGURED,
  AI_STREAM_UNAVAILABLE,
  AI_TURN_IN_PROGRESS,
  conversationNotFound,
  messageAlreadySent,
} from './errors.ts';
import { TOOL_APPROVAL_REASON_TOO_LONG, TOOL_APPROVAL_UNKNOWN_ID } from '../tools/errors.ts';
import { ADMISSION_ERRORS, admitTurn, historyBytesFor, readIncoming, startPriceCheck } from './admission.ts';
import { prepareTurn } from './history.ts';
import { chatModelWith, type ChatModel } from './provider.ts';
import { chatTurns } from './running-turns.ts';
import { answerTurnStream, claimConversation } from './turn-claim.ts';
import { ChatBody, ChatParams, ConversationDetail, ConversationList, ConversationPageQuery, ConversationParams } from './schemas.ts';
import { buildToolSet, callMcpTool, type ToolRunners } from './tool-map.ts';
import { checkGuardrails } from './guardrails.ts';
import { generateTitle } from './titles.ts';
import { refusalStream, streamTurn } from './turn.ts';

const tags = ['chat'];
/** A page of a conversation ends once it holds this many stored bytes (the newest message always comes). */
const PAGE_MAX_BYTES = 8 * 1024 * 1024;
const policy = { subject: 'ai.agent', action: 'read' };

/** Who runs MCP tools: the MCP `tools/call` (built-in tools run their own executor, app/tools/builtins.ts). */
export const chatRunners: ToolRunners = { mcp: callMcpTool };

/** The value of a settled read, or its failure thrown. */
function settled<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}

const scopeOf = (auth: AccessClaims, agentId: string) => ({ organizationId: auth.agencyId, agentId, userId: auth.userId });

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
    auth: 'jwt',
    principal: 'user',
    policy,
    rateLimit: { limit: 30, windowMs: '1m', identifierType: 'userId', source: 'project' },
    scope: AGENT_SCOPE,
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
    handler: async ({ deps, auth, agent, body, ctx }) => {
      const turns = chatTurns(deps);
      // Shutting down: the client retries on another instance (docs/chat.md, "Shutdown").
      if (turns.draining) {
        ctx.set('Retry-After', '1');
        throw serviceUnavailable('shutting down');
      }
      // The agent was found by the route's scope. The reads that do not depend on each other run at
      // once (docs/chat.md, "Decisions"); their failures are still answered in the order of the
      // checks: body, turn claim, provider, history. A new user message (the common turn) also
      // reads the conversation's history now.
      const last = body.messages.at(-1);
      const isUserMessage = body.trigger !== 'regenerate-message' && last?.role === 'user';
      const scope = scopeOf(auth, agent.id);
      const keyFound = findProviderKey(deps.db, auth.agencyId);
      const priced = startPriceCheck(deps, agent, keyFound);
      const [keyRead, toolsRead, serversRead, historyRead, claimRead] = await Promise.allSettled([
        keyFound,
        offeredToolsOf(deps.db, agent.id, auth.userId),
        listAgentServerConnections(deps.db, { agencyId: auth.agencyId, agentId: agent.id }),
        isUserMessage
          ? findConversationHistory(deps.db, scope, body.id, { maxBytes: historyBytesFor(deps.config), messageId: last.id })
          : null,
        claimConversation(deps, scope, body.id, isUserMessage ? last.id : null),
      ]);
      // A turn claimed for a request that fails its checks never ran: its claim goes.
      const turn = claimRead.status === 'fulfilled' && claimRead.value.kind === 'new' ? turns.begin(claimRead.value.turnId) : undefined;
      let model: ChatModel | undefined;
      try {
        const incoming = readIncoming(body);
        const claim = settled(claimRead);
        // A retried POST of a message whose turn runs is answered like the resume GET.
        if (claim.kind === 'join')
          return await answerTurnStream(ctx, turns, claim.turnId, () => {
            throw messageAlreadySent();
          });
        const history = settled(historyRead);
        // The history holds only the newest messages: whether it has this id is asked of the whole conversation.
        if (isUserMessage && history?.hasMessage === true) throw messageAlreadySent();
        const signal = turn!.signal;
        model = chatModelWith(deps, auth.agencyId, agent.modelId ?? deps.config.ai.defaultModel, signal, settled(keyRead));
        const offered = settled(toolsRead);
        await admitTurn(deps, {
          organizationId: auth.agencyId,
          model,
          storedMessages: isUserMessage ? (history?.messageCount ?? 0) : null,
          priced,
        });
        const prepared = await prepareTurn(deps, scope, body.id, incoming, history);
        let title: Promise<string | null> | undefined;
        if (incoming.kind === 'user') {
          // The message is stored; the agent's model sees it only if no guardrail trips (docs/chat.md, step 3).
          const storedKey = settled(keyRead);
          const guard = { organizationId: auth.agencyId, userId: auth.userId, storedKey, signal };
          const verdict = await checkGuardrails(deps, agent, incoming.text, guard);
          if (verdict.tripped) {
            await model.close();
            ctx.set(UI_MESSAGE_STREAM_HEADERS);
            return Readable.from(turn!.run(refusalStream(deps, { agent, conversationId: prepared.conversationId, verdict })));
          }
          // A new conversation is titled beside its first turn, never waited for.
          if (history === null) title = generateTitle(deps, { ...guard, agent }, prepared.conversationId, incoming.text);
        }
        const tools = await buildToolSet(
          deps,
          {
            agencyId: auth.agencyId,
            agentId: agent.id,
            userId: auth.userId,
            signal,
            approvedCallIds: prepared.approvedCallIds,
            servers: settled(serversRead),
          },
          offered,
          chatRunners,
        );
        const stream = await streamTurn({
          deps,
          organizationId: auth.agencyId,
          userId: auth.userId,
          agent,
          conversationId: prepared.conversationId,
          history: prepared.history,
          model,
          tools,
          // Stop, the turn's deadline and shutdown end it; the client going away does not (a disconnect is not a stop).
          signal,
          ...(title ? { title } : {}),
        });
        ctx.set(UI_MESSAGE_STREAM_HEADERS);
        return Readable.from(turn!.run(stream));
      } catch (error) {
        // No stream started: the turn's claim goes and its outbound connections (BYOK) end here.
        await turn?.abandon().catch(() => {});
        await model?.close();
        throw error;
      }
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/conversations',
    summary: "The caller's conversations with an agent, most recent first",
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    scope: AGENT_SCOPE,
    schemas: { params: ChatParams },
    responses: { 200: { description: 'Conversations', schema: ConversationList } },
    handler: async ({ deps, auth, agent }) => {
      const rows = await listConversations(deps.db, scopeOf(auth, agent.id));
      return {
        conversations: rows.map((row) => ({ id: row.clientId, title: row.title, createdAt: row.createdAt, updatedAt: row.updatedAt })),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ai/agents/:agentId/conversations/:conversationId',
    summary: 'One conversation as UI messages, a page at a time (enough for useChat to resume)',
    description:
      'The newest `limit` messages (default 100) written before the message `before`, oldest first; `hasMore` when older ones remain.',
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    rateLimit: { limit: 120, windowMs: '1m', identifierType: 'userId', source: 'project' },
    scope: AGENT_SCOPE,
    schemas: { params: ConversationParams, query: ConversationPageQuery },
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: {
      200: { description: 'The conversation', schema: ConversationDetail },
    },
    handler: async ({ deps, auth, agent, params, query }) => {
      const conversation = await findConversation(deps.db, scopeOf(auth, agent.id), params.conversationId);
      if (!conversation) throw conversationNotFound();
      const page = await listMessagePage(deps.db, conversation.id, {
        limit: query.limit ?? 100,
        before: query.before,
        maxBytes: PAGE_MAX_BYTES,
      });
      return { id: conversation.clientId, ...page };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/ai/agents/:agentId/conversations/:conversationId',
    summary: "Delete one of the caller's conversations",
    tags,
    auth: 'jwt',
    principal: 'user',
    policy,
    scope: AGENT_SCOPE,
    schemas: { params: ConversationParams },
    status: 204,
    errors: [AI_CONVERSATION_NOT_FOUND],
    responses: {
      204: { description: 'Deleted' },
    },
    handler: async ({ deps, auth, agent, params }) => {
      if (!(await deleteConversation(deps.db, scopeOf(auth, agent.id), params.conversationId))) throw conversationNotFound();
      await deleteTurns(deps.db, scopeOf(auth, agent.id), params.conversationId);
    },
  }),
];
