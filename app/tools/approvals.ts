import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import type { ConversationScope } from '../../sql/chat-conversations.ts';
import { answerPendingToolApproval, insertPendingToolApproval, type AnsweredApproval } from '../../sql/tool-approvals.ts';
import { approvalReasonTooLong, approvalUnknownId } from './errors.ts';
import { isUuid } from '../core/schemas.ts';

/** Longest denial reason, in characters (docs/interface.md §10). */
export const MAX_DENIAL_REASON_CHARS = 2000;

/**
 * Records a tool call paused in `approval-requested` and returns the approval id the client
 * answers with. Called by the chat stream when it offers a tool with `requiresApproval`.
 */
export async function requestToolApproval(
  db: CommonQueryMethods,
  pending: {
    id?: string;
    scope: ConversationScope;
    conversationId?: string;
    toolName: string;
    toolCallId?: string;
    input?: unknown;
  },
): Promise<string> {
  const id = pending.id ?? uuidv7();
  await insertPendingToolApproval(db, {
    id,
    scope: pending.scope,
    conversationId: pending.conversationId ?? null,
    toolName: pending.toolName,
    toolCallId: pending.toolCallId ?? null,
    input: pending.input ?? {},
  });
  return id;
}

export type ApprovalResponse = {
  scope: ConversationScope;
  /** When given, the approval must also belong to this conversation. */
  conversationId?: string;
  approvalId: string;
  approved: boolean;
  reason?: string;
};

/**
 * Checks and consumes the user's answer to a pending approval. Throws 400
 * `TOOL_APPROVAL_REASON_TOO_LONG` for a reason over 2000 characters (code points, as PostgreSQL
 * counts them) without consuming the approval, and 400 `TOOL_APPROVAL_UNKNOWN_ID` when the id
 * matches no pending approval of this owner and agent: unknown, already answered (single use) or
 * raised for someone else look the same.
 */
export async function answerToolApproval(
  db: CommonQueryMethods,
  response: ApprovalResponse,
  now: Date = new Date(),
): Promise<AnsweredApproval> {
  if (response.reason !== undefined && [...response.reason].length > MAX_DENIAL_REASON_CHARS)
    throw approvalReasonTooLong(MAX_DENIAL_REASON_CHARS);
  // PostgreSQL text cannot hold NUL; it is kept visible as U+FFFD.
  const reason = response.reason?.replaceAll('\u0000', '\ufffd') ?? null;
  const ids = [response.approvalId, ...(response.conversationId === undefined ? [] : [response.conversationId])];
  if (!ids.every(isUuid)) throw approvalUnknownId();
  const answered = await answerPendingToolApproval(
    db,
    { ...response.scope, ...(response.conversationId === undefined ? {} : { conversationId: response.conversationId }) },
    { approvalId: response.approvalId, approved: response.approved, reason, answeredAt: now },
  );
  if (!answered) throw approvalUnknownId();
  return answered;
}
