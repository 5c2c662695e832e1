import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';

const Conversation = z.strictObject({
  id: z.string(),
  clientId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Conversation = z.infer<typeof Conversation>;

const StoredMessage = z.strictObject({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  parts: z.array(z.strictObject({ type: z.string() }).catchall(z.unknown())),
  /** The UI message's `metadata` (a refused answer's `guardrail`); read where clients read messages. */
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

/**
 * Whose conversations: a staff user's (`userId`) or an end user's of the agent's web channel
 * (`endUserId`), always within one organization and agent. Every statement of a conversation, its
 * turns and its approvals filters by it (`ownerIs`), so neither kind reaches the other's.
 */
export type ConversationScope = StaffScope | EndUserScope;
export type StaffScope = { organizationId: string; agentId: string; userId: string };
export type EndUserScope = { organizationId: string; agentId: string; endUserId: string };

export const isEndUserScope = (scope: ConversationScope): scope is EndUserScope => 'endUserId' in scope;

/** `user_id = …` or `end_user_id = …` of the scope's owner (with the table's alias, when given). */
export function ownerIs(scope: ConversationScope, alias?: string) {
  const column = (name: string) => (alias ? sql.identifier([alias, name]) : sql.identifier([name]));
  return isEndUserScope(scope)
    ? sql.fragment`${column('end_user_id')} = ${scope.endUserId}`
    : sql.fragment`${column('user_id')} = ${scope.userId}`;
}

/** The owner's `user_id, end_user_id` values of an INSERT. */
export const ownerValues = (scope: ConversationScope) =>
  isEndUserScope(scope) ? sql.fragment`NULL, ${scope.endUserId}::uuid` : sql.fragment`${scope.userId}::uuid, NULL`;

/** The unique key a conversation of this owner meets on (its index differs by owner kind). */
const conversationKey = (scope: ConversationScope) =>
  isEndUserScope(scope)
    ? sql.fragment`(agent_id, end_user_id, client_id) WHERE end_user_id IS NOT NULL`
    : sql.fragment`(organization_id, agent_id, user_id, client_id)`;

const conversationColumns = sql.fragment`
  id, client_id AS "clientId", title, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The caller's conversation with this client id, or null (another user's is absent). */
export function findConversation(db: CommonQueryMethods, scope: ConversationScope, clientId: string) {
  return db.maybeOne(sql.type(Conversation)`
    SELECT ${conversationColumns} FROM chat_conversations
    WHERE organization_id = ${scope.organizationId} AND agent_id = ${scope.agentId}
      AND ${ownerIs(scope)} AND client_id = ${clientId}`);
}

/**
 * The caller's conversation with this client id, created with `title` when absent. Concurrent
 * first requests of one conversation meet on the unique key and both get the same row.
 */
export function ensureConversation(
  db: CommonQueryMethods,
  scope: ConversationScope,
  conversation: { id: string; clientId: string; title: string; now: Date },
) {
  return db.one(sql.type(Conversation)`
    INSERT INTO chat_conversations (id, organization_id, agent_id, user_id, end_user_id, client_id, title, created_at, updated_at)
    VALUES (${conversation.id}, ${scope.organizationId}, ${scope.agentId}, ${ownerValues(scope)}, ${conversation.clientId},
            ${conversation.title}, ${conversation.now.toISOString()}, ${conversation.now.toISOString()})
    ON CONFLICT ${conversationKey(scope)} DO UPDATE SET updated_at = chat_conversations.updated_at
    RETURNING ${conversationColumns}`);
}

/** A data-modifying CTE that sets a conversation's title (for `insertUsageEvents`' `alongside`: the title call's usage row and its title in one statement). */
export const conversationTitleWrite = (conversationId: string, title: string) =>
  sql.fragment`titled_conversation AS (UPDATE chat_conversations SET title = ${title} WHERE id = ${conversationId})`;

/** The caller's conversations with this agent, most recently active first. */
export function listConversations(db: CommonQueryMethods, scope: ConversationScope) {
  return db.any(sql.type(Conversation)`
    SELECT ${conversationColumns} FROM chat_conversations
    WHERE organization_id = ${scope.organizationId} AND agent_id = ${scope.agentId} AND ${ownerIs(scope)}
    ORDER BY updated_at DESC, id DESC
    LIMIT 500`);
}

/** Deletes the caller's conversation (its messages go with it); false when there was none. */
export async function deleteConversation(db: CommonQueryMethods, scope: ConversationScope, clientId: string): Promise<boolean> {
  const deleted = await db.maybeOne(sql.type(IdRow)`
    DELETE FROM chat_conversations
    WHERE organization_id = ${scope.organizationId} AND agent_id = ${scope.agentId}
      AND ${ownerIs(scope)} AND client_id = ${clientId}
    RETURNING id`);
  return deleted !== null;
}

/** Writes a message, replacing the parts of one already stored with this id (an assistant message continued after an approval). */
export async function saveMessage(db: CommonQueryMethods, conversationId: string, message: StoredMessage, now: Date): Promise<void> {
  await db.query(sql.unsafe`WITH ${messageWrites(conversationId, message, now)} SELECT 1`);
}

/**
 * `saveMessage`'s writes as data-modifying CTEs (they always run) for a statement that writes more
 * (a chat turn's answer with its usage events, `insertUsageEvents`' `alongside`): the message, then
 * the conversation's activity time.
 */
export function messageWrites(conversationId: string, message: StoredMessage, now: Date) {
  return sql.fragment`
    saved_message AS (
      INSERT INTO chat_messages (conversation_id, id, role, parts, metadata, created_at, updated_at)
      VALUES (${conversationId}, ${message.id}, ${message.role}, ${sql.jsonb(message.parts as never)},
              ${message.metadata ? sql.jsonb(message.metadata as never) : null}, ${now.toISOString()}, ${now.toISOString()})
      ON CONFLICT (conversation_id, id) DO UPDATE SET parts = excluded.parts, metadata = excluded.metadata, updated_at = excluded.updated_at
    ), touched_conversation AS (
      UPDATE chat_conversations SET updated_at = ${now.toISOString()} WHERE id = ${conversationId}
    )`;
}

/**
 * A message into the caller's conversation with this client id, the conversation created with
 * `title` when absent, in one statement (atomic without a transaction: one round trip where
 * `ensureConversation` then `saveMessage` in a transaction take four). Ends as those two do: the
 * conversation's `updated_at` is `now`, a message already stored with this id gets these parts.
 * Returns the conversation's id.
 */
export function saveMessageCreatingConversation(
  db: CommonQueryMethods,
  scope: ConversationScope,
  conversation: { id: string; clientId: string; title: string },
  message: StoredMessage,
  now: Date,
) {
  // The message's foreign key is checked at the statement's end, when the conversation row exists.
  return db.oneFirst(sql.type(IdRow)`
    WITH conversation AS (
      INSERT INTO chat_conversations (id, organization_id, agent_id, user_id, end_user_id, client_id, title, created_at, updated_at)
      VALUES (${conversation.id}, ${scope.organizationId}, ${scope.agentId}, ${ownerValues(scope)}, ${conversation.clientId},
              ${conversation.title}, ${now.toISOString()}, ${now.toISOString()})
      ON CONFLICT ${conversationKey(scope)} DO UPDATE SET updated_at = excluded.updated_at
      RETURNING id
    ), saved AS (
      INSERT INTO chat_messages (conversation_id, id, role, parts, created_at, updated_at)
      SELECT conversation.id, ${message.id}, ${message.role}, ${sql.jsonb(message.parts as never)}, ${now.toISOString()}, ${now.toISOString()}
      FROM conversation
      ON CONFLICT (conversation_id, id) DO UPDATE SET parts = excluded.parts, updated_at = excluded.updated_at
    )
    SELECT id FROM conversation`);
}

const DeletedRow = z.strictObject({ metadata: z.record(z.string(), z.unknown()).nullable() });

/**
 * Removes one message (the assistant answer a `regenerate-message` replaces) and answers its
 * metadata (a refusal's `guardrail`: the verdict the next answer keeps); null when it was gone.
 */
export async function deleteMessage(db: CommonQueryMethods, conversationId: string, messageId: string) {
  const deleted = await db.maybeOne(sql.type(DeletedRow)`
    DELETE FROM chat_messages WHERE conversation_id = ${conversationId} AND id = ${messageId} RETURNING metadata`);
  return deleted === null ? null : { metadata: deleted.metadata };
}

const Moderation = z.strictObject({ model: z.string(), unsafe: z.boolean() });
/** A user message's moderation verdict: the model that judged it and whether it said unsafe. */
export type Moderation = z.infer<typeof Moderation>;
const ModerationRow = z.strictObject({ moderation: Moderation.nullable() });

/** The stored moderation verdict of a message, or null (none stored, or no such message). */
export async function findMessageModeration(db: CommonQueryMethods, conversationId: string, messageId: string) {
  const row = await db.maybeOne(sql.type(ModerationRow)`
    SELECT moderation FROM chat_messages WHERE conversation_id = ${conversationId} AND id = ${messageId}`);
  return row?.moderation ?? null;
}

/** Stores a message's moderation verdict (never answered to clients). */
export async function setMessageModeration(db: CommonQueryMethods, conversationId: string, messageId: string, moderation: Moderation) {
  await db.query(sql.unsafe`
    UPDATE chat_messages SET moderation = ${sql.jsonb(moderation)} WHERE conversation_id = ${conversationId} AND id = ${messageId}`);
}

/** A message id as stored (UUIDv7): what `findConversationHistory` can look up. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ConversationHistoryRow = z.strictObject({
  id: z.string(),
  messageCount: z.number(),
  hasMessage: z.boolean(),
  messages: z.array(StoredMessage),
});

/**
 * The caller's conversation with this client id, how many messages it holds, whether it holds the
 * message `messageId`, and its newest messages (in the order they were written) whose stored size
 * adds up to at most `maxBytes`, the newest always, in one statement (the chat stream reads it
 * before the first model call); null when absent. The sizes come from the `bytes` column, so older
 * messages' parts are not read.
 */
export function findConversationHistory(
  db: CommonQueryMethods,
  scope: ConversationScope,
  clientId: string,
  window: { maxBytes: number; messageId?: string | undefined },
) {
  return db.maybeOne(sql.type(ConversationHistoryRow)`${conversationHistoryOf(scope, clientId, window)}`);
}

function conversationHistoryOf(scope: ConversationScope, clientId: string, window: { maxBytes: number; messageId?: string | undefined }) {
  const messageId = window.messageId !== undefined && UUID.test(window.messageId) ? window.messageId : null;
  return sql.fragment`
    SELECT c.id,
      (SELECT count(*)::int FROM chat_messages m WHERE m.conversation_id = c.id) AS "messageCount",
      EXISTS (SELECT 1 FROM chat_messages m WHERE m.conversation_id = c.id AND m.id = ${messageId}::uuid) AS "hasMessage",
      COALESCE(
        (SELECT json_agg(json_build_object('id', w.id, 'role', w.role, 'parts', w.parts) ORDER BY w.id)
         FROM (SELECT m.id, m.role, m.parts, sum(m.bytes) OVER (ORDER BY m.id DESC) - m.bytes AS newer_bytes
               FROM chat_messages m WHERE m.conversation_id = c.id) w
         WHERE w.newer_bytes < ${window.maxBytes}), '[]'::json) AS messages
    FROM chat_conversations c
    WHERE c.organization_id = ${scope.organizationId} AND c.agent_id = ${scope.agentId}
      AND ${ownerIs(scope, 'c')} AND c.client_id = ${clientId}`;
}

/** `findConversationHistory`'s row as one JSON value (null: no conversation), for a statement that reads more (sql/chat-turn-reads.ts). */
export const conversationHistoryJson = (
  scope: ConversationScope,
  clientId: string,
  window: { maxBytes: number; messageId?: string | undefined },
) => sql.fragment`(SELECT row_to_json(h) FROM (${conversationHistoryOf(scope, clientId, window)}) h)`;

/** What `conversationHistoryJson` answers. */
export const ConversationHistoryJson = ConversationHistoryRow.nullable();

/**
 * One page of a conversation: its newest `limit` messages written before the message `before`
 * (all when absent), oldest first, and whether older ones remain. A page also ends once its stored
 * size passes `maxBytes` (the newest message always comes), so a page of huge answers stays
 * bounded; `hasMore` then says to ask again. Message ids are UUIDv7 made by the service, so id
 * order is write order and any id bounds a page.
 */
export async function listMessagePage(
  db: CommonQueryMethods,
  conversationId: string,
  page: { limit: number; before: string | undefined; maxBytes: number },
): Promise<{ messages: StoredMessage[]; hasMore: boolean }> {
  const rows = await db.any(sql.type(StoredMessage)`
    SELECT id, role, parts, metadata FROM (
      SELECT m.id, m.role, m.parts, m.metadata, sum(m.bytes) OVER (ORDER BY m.id DESC) - m.bytes AS newer_bytes
      FROM chat_messages m
      WHERE m.conversation_id = ${conversationId} ${page.before === undefined ? sql.fragment`` : sql.fragment`AND m.id < ${page.before}`}
      ORDER BY m.id DESC
      LIMIT ${page.limit + 1}) w
    WHERE w.newer_bytes < ${page.maxBytes}
    ORDER BY w.id DESC`);
  // A message without metadata has no `metadata` key, as the AI SDK writes it.
  const kept = rows.slice(0, page.limit).map(({ metadata, ...message }) => (metadata ? { ...message, metadata } : message));
  return { messages: kept.reverse(), hasMore: rows.length > kept.length || (await hasOlder(db, conversationId, kept[0]?.id)) };
}

async function hasOlder(db: CommonQueryMethods, conversationId: string, oldestKept: string | undefined): Promise<boolean> {
  if (oldestKept === undefined) return false;
  return db.exists(sql.unsafe`SELECT 1 FROM chat_messages WHERE conversation_id = ${conversationId} AND id < ${oldestKept}`);
}

/**
 * The conversation's newest messages whose stored size adds up to at most `maxBytes` (the newest
 * always), in the order they were written: what a turn answering approvals or regenerating reads.
 */
export function listNewestMessages(db: CommonQueryMethods, conversationId: string, maxBytes: number) {
  return db.any(sql.type(StoredMessage)`
    SELECT id, role, parts FROM (
      SELECT m.id, m.role, m.parts, sum(m.bytes) OVER (ORDER BY m.id DESC) - m.bytes AS newer_bytes
      FROM chat_messages m WHERE m.conversation_id = ${conversationId}) w
    WHERE w.newer_bytes < ${maxBytes}
    ORDER BY w.id`);
}
