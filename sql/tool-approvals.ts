import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ownerIs, ownerValues, type ConversationScope } from './chat-conversations.ts';

const AnsweredApproval = z.strictObject({
  id: z.string(),
  toolName: z.string(),
  toolCallId: z.string().nullable(),
  conversationId: z.string().nullable(),
  input: z.unknown(),
  approved: z.boolean(),
  reason: z.string().nullable(),
  answeredAt: z.string(),
});
export type AnsweredApproval = z.infer<typeof AnsweredApproval>;

export type PendingApprovalInput = {
  id: string;
  /** Whose turn asked: a staff user or an end user, of this agent. */
  scope: ConversationScope;
  conversationId: string | null;
  toolName: string;
  toolCallId: string | null;
  input: unknown;
};

export async function insertPendingToolApproval(db: CommonQueryMethods, approval: PendingApprovalInput) {
  await db.query(sql.unsafe`
    INSERT INTO tool_approvals (id, user_id, end_user_id, agent_id, conversation_id, tool_name, tool_call_id, input)
    VALUES (${approval.id}, ${ownerValues(approval.scope)}, ${approval.scope.agentId}, ${approval.conversationId},
            ${approval.toolName}, ${approval.toolCallId}, ${sql.jsonb(approval.input as never)})`);
}

/**
 * Answers the pending approval with this id raised for this owner (a user or an end user) and
 * agent (and conversation, when given). One statement, so of two concurrent answers exactly one finds it pending;
 * an answered, foreign or missing approval returns null.
 */
export function answerPendingToolApproval(
  db: CommonQueryMethods,
  scope: ConversationScope & { conversationId?: string },
  answer: { approvalId: string; approved: boolean; reason: string | null; answeredAt: Date },
) {
  const conversation = scope.conversationId ? sql.fragment`AND conversation_id = ${scope.conversationId}` : sql.fragment``;
  return db.maybeOne(sql.type(AnsweredApproval)`
    UPDATE tool_approvals
    SET answered_at = ${answer.answeredAt.toISOString()}, approved = ${answer.approved}, reason = ${answer.reason}
    WHERE id = ${answer.approvalId} AND ${ownerIs(scope)} AND agent_id = ${scope.agentId}
      AND answered_at IS NULL ${conversation}
    RETURNING id, tool_name AS "toolName", tool_call_id AS "toolCallId", conversation_id AS "conversationId",
              input, approved, reason, answered_at AS "answeredAt"`);
}
