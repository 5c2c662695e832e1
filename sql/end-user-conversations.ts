import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { StaffEndUserRef, staffEndUserRef } from './end-users.ts';

/*
 * End users' conversations with an agent, as the organization's staff read them (transcripts,
 * docs/chat.md "Who answers an approval"). Named by the service's own id: end users choose their
 * conversations' ids, which may repeat across end users.
 */

const Transcript = z.strictObject({
  id: z.string(),
  endUser: StaffEndUserRef,
  title: z.string(),
  messageCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const transcriptColumns = sql.fragment`
  c.id, ${staffEndUserRef} AS "endUser",
  c.title, (SELECT count(*)::int FROM chat_messages m WHERE m.conversation_id = c.id) AS "messageCount",
  c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

/** The agent's end users' conversations, most recently active first: `limit + 1` rows (the extra one tells `hasMore`), after `before` when given. */
export function listTranscripts(db: CommonQueryMethods, agentId: string, page: { limit: number; before: string | undefined }) {
  const before =
    page.before === undefined
      ? sql.fragment``
      : sql.fragment`AND (c.updated_at, c.id) < (SELECT updated_at, id FROM chat_conversations WHERE id = ${page.before})`;
  return db.any(sql.type(Transcript)`
    SELECT ${transcriptColumns}
    FROM chat_conversations c JOIN end_users u ON u.id = c.end_user_id
    WHERE c.agent_id = ${agentId} AND c.end_user_id IS NOT NULL ${before}
    ORDER BY c.updated_at DESC, c.id DESC
    LIMIT ${page.limit + 1}`);
}

/** One end user's conversation with the agent, or null (a staff conversation, another agent's, none). */
export function findTranscript(db: CommonQueryMethods, agentId: string, conversationId: string) {
  return db.maybeOne(sql.type(Transcript)`
    SELECT ${transcriptColumns}
    FROM chat_conversations c JOIN end_users u ON u.id = c.end_user_id
    WHERE c.id = ${conversationId} AND c.agent_id = ${agentId}`);
}
