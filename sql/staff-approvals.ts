import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/*
 * Approvals of end users' turns, as the organization's staff see and answer them (migration 1103,
 * docs/chat.md "Who answers an approval").
 */

const EndUserOfApproval = z.strictObject({
  id: z.string(),
  externalId: z.string().nullable(),
  verified: z.boolean(),
  name: z.string().nullable(),
});

const StaffApproval = z.strictObject({
  id: z.string(),
  agentId: z.string(),
  conversationId: z.string(),
  endUser: EndUserOfApproval,
  toolName: z.string(),
  input: z.unknown(),
  status: z.enum(['pending', 'answered']),
  approved: z.boolean().nullable(),
  reason: z.string().nullable(),
  requestedAt: z.string(),
  answeredAt: z.string().nullable(),
  answeredBy: z.string().nullable(),
});
export type StaffApproval = z.infer<typeof StaffApproval>;

/** The approval's columns for staff; `conversationId` is the service's id of the conversation (the transcripts' id). */
const staffColumns = sql.fragment`
  a.id, a.agent_id AS "agentId", a.conversation_id AS "conversationId",
  json_build_object('id', u.id, 'externalId', u.external_id, 'verified', u.kind <> 'anonymous', 'name', u.name) AS "endUser",
  a.tool_name AS "toolName", a.input,
  CASE WHEN a.answered_at IS NULL THEN 'pending' ELSE 'answered' END AS status,
  a.approved, a.reason, a.created_at AS "requestedAt", a.answered_at AS "answeredAt", a.answered_by AS "answeredBy"`;

const staffJoins = sql.fragment`
  FROM tool_approvals a
  JOIN end_users u ON u.id = a.end_user_id`;

/**
 * The organization's approvals of end users' turns, newest first: `limit + 1` rows (the caller
 * tells `hasMore` from the extra one), those before the approval `before` when given.
 */
export function listStaffApprovals(
  db: CommonQueryMethods,
  organizationId: string,
  page: { status: 'pending' | 'answered'; limit: number; before: string | undefined },
) {
  const status = page.status === 'pending' ? sql.fragment`a.answered_at IS NULL` : sql.fragment`a.answered_at IS NOT NULL`;
  const before =
    page.before === undefined
      ? sql.fragment``
      : sql.fragment`AND (a.created_at, a.id) < (SELECT created_at, id FROM tool_approvals WHERE id = ${page.before})`;
  return db.any(sql.type(StaffApproval)`
    SELECT ${staffColumns} ${staffJoins}
    WHERE a.end_user_id IS NOT NULL AND u.organization_id = ${organizationId} AND ${status} ${before}
    ORDER BY a.created_at DESC, a.id DESC
    LIMIT ${page.limit + 1}`);
}

/** One approval of an end user's turn in the organization, or null. */
export function findStaffApproval(db: CommonQueryMethods, organizationId: string, approvalId: string) {
  return db.maybeOne(sql.type(StaffApproval)`
    SELECT ${staffColumns} ${staffJoins}
    WHERE a.id = ${approvalId} AND a.end_user_id IS NOT NULL AND u.organization_id = ${organizationId}`);
}

const AnsweredRow = z.strictObject({ conversationId: z.string() });

/**
 * Answers the pending approval for the staff (`answeredBy`; null: expired). One statement: of two
 * answers at once exactly one finds it pending. Returns the conversation's own id, or null when it
 * was answered already.
 */
export async function answerStaffApproval(
  db: CommonQueryMethods,
  answer: { approvalId: string; approved: boolean; reason: string | null; answeredBy: string | null; now: Date },
): Promise<string | null> {
  const row = await db.maybeOne(sql.type(AnsweredRow)`
    UPDATE tool_approvals SET answered_at = ${sql.timestamp(answer.now)}, approved = ${answer.approved}, reason = ${answer.reason},
      answered_by = ${answer.answeredBy}
    WHERE id = ${answer.approvalId} AND end_user_id IS NOT NULL AND answered_at IS NULL
    RETURNING conversation_id AS "conversationId"`);
  return row?.conversationId ?? null;
}

const Expired = z.strictObject({ id: z.string() });

/** Pending approvals of end users' turns asked before `before`: at most `limit`, oldest first. */
export function listExpiredApprovals(db: CommonQueryMethods, before: Date, limit: number) {
  return db.anyFirst(sql.type(Expired)`
    SELECT id FROM tool_approvals
    WHERE end_user_id IS NOT NULL AND answered_at IS NULL AND created_at < ${sql.timestamp(before)}
    ORDER BY created_at LIMIT ${limit}`);
}

const Claimed = z.strictObject({ sent: z.boolean() });

/**
 * Claims the right to mail the staff about a pending approval of this conversation: true when no
 * mail went for it since `since` (the claim and its time are recorded), false otherwise. One
 * statement: concurrent approvals of one conversation send one mail.
 */
export async function claimApprovalNotification(db: CommonQueryMethods, conversationId: string, now: Date, since: Date): Promise<boolean> {
  const row = await db.maybeOne(sql.type(Claimed)`
    INSERT INTO approval_notifications AS n (conversation_id, sent_at) VALUES (${conversationId}, ${sql.timestamp(now)})
    ON CONFLICT (conversation_id) DO UPDATE SET sent_at = excluded.sent_at WHERE n.sent_at < ${sql.timestamp(since)}
    RETURNING true AS sent`);
  return row !== null;
}

const Recipient = z.strictObject({ email: z.string() });

/** The organization's users whose roles grant `update` on `ai.approval` or `ai.agent`: who may answer its approvals. */
export function listApprovalRecipients(db: CommonQueryMethods, organizationId: string) {
  return db.anyFirst(sql.type(Recipient)`
    SELECT u.email FROM users u
    WHERE u.organization_id = ${organizationId} AND u.type = 'user'
      AND EXISTS (
        SELECT 1 FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
        WHERE ur.user_id = u.id AND rp.action = 'update' AND rp.subject IN ('ai.approval', 'ai.agent'))
    ORDER BY u.email`);
}

const ApprovalState = z.strictObject({
  id: z.string(),
  answered: z.boolean(),
  approved: z.boolean().nullable(),
  reason: z.string().nullable(),
});

/** Whether each of these approvals is answered, and how. */
export function findApprovalStates(db: CommonQueryMethods, approvalIds: readonly string[]) {
  return db.any(sql.type(ApprovalState)`
    SELECT id, answered_at IS NOT NULL AS answered, approved, reason FROM tool_approvals
    WHERE id = ANY(${sql.array([...approvalIds], 'uuid')})`);
}

const EndUserConversation = z.strictObject({
  organizationId: z.string(),
  agentId: z.string(),
  endUserId: z.string(),
  clientId: z.string(),
});

/** An end user's conversation by the service's own id: whose it is and the client's id of it; null for a staff conversation or none. */
export function findEndUserConversation(db: CommonQueryMethods, conversationId: string) {
  return db.maybeOne(sql.type(EndUserConversation)`
    SELECT organization_id AS "organizationId", agent_id AS "agentId", end_user_id AS "endUserId", client_id AS "clientId"
    FROM chat_conversations WHERE id = ${conversationId} AND end_user_id IS NOT NULL`);
}
