import { findConversation, listConversations, listMessagePage, type ConversationScope } from '../../sql/chat-conversations.ts';
import { findRunningTurn } from '../../sql/chat-turns.ts';
import type { AppDeps } from '../core/deps.ts';
import { conversationNotFound } from './errors.ts';

/*
 * The readers of a scope's conversations, one for every caller: a staff user's routes
 * (app/chat/routes.ts, app/chat/turn-routes.ts), an end user's (app/channel/public-routes.ts) and
 * the staff's transcripts (app/chat/staff/routes.ts).
 */

/** A page of a conversation ends once it holds this many stored bytes (the newest message always comes). */
export const CONVERSATION_PAGE_MAX_BYTES = 8 * 1024 * 1024;

/** The scope's conversations, most recent first, as the list routes answer them. */
export async function conversationsOf(deps: AppDeps, scope: ConversationScope) {
  const rows = await listConversations(deps.db, scope);
  return {
    conversations: rows.map((row) => ({ id: row.clientId, title: row.title, createdAt: row.createdAt, updatedAt: row.updatedAt })),
  };
}

/**
 * One of the scope's conversations as UI messages: the newest `limit` (default 100) written
 * before the message `before`, oldest first, within `CONVERSATION_PAGE_MAX_BYTES`; 404 for a
 * conversation the caller does not have (another user's looks the same).
 */
export async function conversationPage(
  deps: AppDeps,
  scope: ConversationScope,
  conversationId: string,
  query: { limit?: number | undefined; before?: string | undefined },
) {
  const conversation = await findConversation(deps.db, scope, conversationId);
  if (!conversation) throw conversationNotFound();
  const page = await listMessagePage(deps.db, conversation.id, {
    limit: query.limit ?? 100,
    before: query.before,
    maxBytes: CONVERSATION_PAGE_MAX_BYTES,
  });
  return { id: conversation.clientId, ...page };
}

/**
 * The running turn of one of the scope's conversations (a staff user's or an end user's), or null;
 * 404 for a conversation the caller does not have (another user's looks the same).
 */
export async function runningTurnOf(deps: AppDeps, scope: ConversationScope, conversationId: string) {
  const [turn, conversation] = await Promise.all([
    findRunningTurn(deps.db, scope, conversationId),
    findConversation(deps.db, scope, conversationId),
  ]);
  // A new conversation's first turn may run before its row is committed: the turn is the caller's.
  if (!turn && !conversation) throw conversationNotFound();
  return turn;
}
