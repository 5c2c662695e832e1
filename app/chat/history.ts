import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import {
  deleteMessage,
  ensureConversation,
  findConversation,
  listNewestMessages,
  saveMessage,
  saveMessageCreatingConversation,
  type ConversationScope,
  type StoredMessage,
} from '../../sql/chat-conversations.ts';
import { answerPendingToolApproval } from '../../sql/tool-approvals.ts';
import type { AppDeps } from '../core/deps.ts';
import { ValidationError } from '../core/errors.ts';
import { answerToolApproval } from '../tools/approvals.ts';
import { approvalUnknownId } from '../tools/errors.ts';
import { conversationNotFound } from './errors.ts';
import { historyBytesFor, type Incoming } from './admission.ts';
import { titleOf } from './titles.ts';

/** The reason recorded for an approval the user left unanswered and moved on from. */
export const UNANSWERED_REASON = 'The user sent a new message without answering this approval.';

/**
 * `approvedCallIds`: the tool calls whose approval this request consumed as approved. They run
 * even if the tool no longer needs approval (an "always allow" recorded while the call waited):
 * the AI SDK turns an approval of a tool that needs none into a denial.
 */
export type PreparedTurn = {
  /** The conversation's id, once the request's writes are committed (a rejection: they failed). */
  conversationId: Promise<string>;
  history: StoredMessage[];
  approvedCallIds: ReadonlySet<string>;
  /** A regenerate's dropped answer's metadata (a refusal's verdict stands: app/chat/judge.ts). */
  replacedMetadata?: Record<string, unknown> | null;
};
const NONE: ReadonlySet<string> = new Set();
type Part = StoredMessage['parts'][number];
/** The conversation and its messages as `findConversationHistory` read them (null: none yet). */
export type KnownHistory = { id: string; messages: readonly StoredMessage[] } | null;

/**
 * Applies what the request contributes to the stored conversation, atomically, and
 * returns the stored history the model will be given:
 * - a user message: the conversation is created when new (its title from this first message),
 *   approvals still pending in the last answer are closed as denied, the message is stored.
 *   The history is `known` (read before, with the turn's other reads) and the write is not waited
 *   for: the model call starts while it commits, and the turn waits for it before it writes
 *   anything of its own (`conversationId`). A failed write ends the stream with an error chunk;
 * - approval answers: each is consumed through `answerToolApproval` (unknown, answered, another
 *   user's or another conversation's id: 400, nothing changed) and written into the stored tool
 *   part as `approval-responded`; the stored call (input included) is what will run; answers the
 *   staff recorded (`answered`) are written the same way;
 * - regenerate: the last assistant answer is dropped (its metadata kept in `replacedMetadata`).
 * Everything but the user message's write happens before any stream starts.
 */
export async function prepareTurn(
  deps: AppDeps,
  scope: ConversationScope,
  clientId: string,
  incoming: Incoming,
  known: KnownHistory,
): Promise<PreparedTurn> {
  const now = deps.clock();
  if (incoming.kind === 'user') {
    const history = known ? known.messages.map((message) => ({ ...message })) : [];
    const denied = closePendingParts(history);
    const message: StoredMessage = { id: uuidv7(), role: 'user', parts: [{ type: 'text', text: incoming.text }] };
    const conversation = { id: known?.id ?? uuidv7(), clientId, title: titleOf(incoming.text) };
    // Nothing to close (the common turn): one statement. Else the closing and the message commit together.
    const conversationId =
      denied.approvalIds.length === 0 && !denied.message
        ? saveMessageCreatingConversation(deps.db, scope, conversation, message, now)
        : writeClosingPending(deps, scope, conversation, denied, message, now);
    // Observed by the turn; this keeps a failure that the turn has not reached yet from being unhandled.
    conversationId.catch(() => {});
    return { conversationId, history: [...history, message], approvedCallIds: NONE };
  }
  const conversation = await findConversation(deps.db, scope, clientId);
  if (incoming.kind === 'answers' || incoming.kind === 'answered') {
    if (!conversation) throw approvalUnknownId();
    return deps.db.transaction(async (tx) => {
      const answered = new Map<string, { approved: boolean; reason: string | null }>();
      for (const answer of incoming.answers) {
        // Staff answers are recorded already (app/chat/staff/routes.ts); the owner's are consumed here, once.
        const row =
          incoming.kind === 'answered'
            ? { id: answer.approvalId, approved: answer.approved, reason: answer.reason ?? null }
            : await answerToolApproval(tx, { scope, conversationId: conversation.id, ...answer }, now);
        answered.set(row.id, { approved: row.approved, reason: row.reason });
      }
      const history = [...(await listNewestMessages(tx, conversation.id, historyBytesFor(deps.config)))];
      const last = history.at(-1);
      const approvedCallIds = new Set<string>();
      if (last?.role === 'assistant') {
        last.parts = last.parts.map((part) => {
          const answer = pendingApprovalId(part) === undefined ? undefined : answered.get(pendingApprovalId(part)!);
          if (!answer) return part;
          const approval = {
            id: pendingApprovalId(part)!,
            approved: answer.approved,
            ...(answer.reason === null ? {} : { reason: answer.reason }),
          };
          if (answer.approved && typeof part.toolCallId === 'string') approvedCallIds.add(part.toolCallId);
          return { ...part, state: 'approval-responded', approval };
        });
      }
      await closePending(tx, scope, conversation.id, history, now);
      return { conversationId: Promise.resolve(conversation.id), history, approvedCallIds };
    });
  }
  if (!conversation) throw conversationNotFound();
  return deps.db.transaction(async (tx) => {
    const history = [...(await listNewestMessages(tx, conversation.id, historyBytesFor(deps.config)))];
    const last = history.at(-1);
    let replacedMetadata: Record<string, unknown> | null = null;
    if (last?.role === 'assistant') {
      replacedMetadata = (await deleteMessage(tx, conversation.id, last.id))?.metadata ?? null;
      await closePending(tx, scope, conversation.id, [last], now);
      history.pop();
    }
    if (history.at(-1)?.role !== 'user')
      throw new ValidationError([{ path: ['trigger'], message: 'there is no user message to answer again' }]);
    return { conversationId: Promise.resolve(conversation.id), history, approvedCallIds: NONE, replacedMetadata };
  });
}

/** A user message after an answer with approvals left pending: they are closed as denied, in one transaction with the message. */
function writeClosingPending(
  deps: AppDeps,
  scope: ConversationScope,
  known: { id: string; clientId: string; title: string },
  denied: Denied,
  message: StoredMessage,
  now: Date,
): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const conversation = await ensureConversation(tx, scope, { ...known, now });
    await denyPending(tx, scope, conversation.id, denied, now);
    if (denied.message) await saveMessage(tx, conversation.id, denied.message, now);
    await saveMessage(tx, conversation.id, message, now);
    return conversation.id;
  });
}

/**
 * Approvals still `approval-requested` in the last stored message are answered as denied
 * (single use: the stored row is consumed) and their parts end `output-denied`, so the model
 * never sees a tool call without a result. The message is saved when it changed.
 */
async function closePending(db: CommonQueryMethods, scope: ConversationScope, conversationId: string, history: StoredMessage[], now: Date) {
  const denied = closePendingParts(history);
  await denyPending(db, scope, conversationId, denied, now);
  if (denied.message) await saveMessage(db, conversationId, denied.message, now);
}

type Denied = { approvalIds: string[]; message: StoredMessage | undefined };

/** `closePending` in memory: the last message's parts as they will be stored, and what to consume. */
function closePendingParts(history: StoredMessage[]): Denied {
  const last = history.at(-1);
  if (last?.role !== 'assistant') return { approvalIds: [], message: undefined };
  let changed = last.parts.some((part) => part.state === 'approval-responded');
  const approvalIds: string[] = [];
  const parts: Part[] = [];
  for (const part of last.parts) {
    const approvalId = pendingApprovalId(part);
    if (approvalId === undefined) {
      parts.push(part);
      continue;
    }
    changed = true;
    approvalIds.push(approvalId);
    parts.push({ ...part, state: 'output-denied', approval: { id: approvalId, approved: false, reason: UNANSWERED_REASON } });
  }
  last.parts = parts;
  return { approvalIds, message: changed ? last : undefined };
}

/** Consumes the approvals `closePendingParts` closed, as denied. */
async function denyPending(db: CommonQueryMethods, scope: ConversationScope, conversationId: string, denied: Denied, now: Date) {
  for (const approvalId of denied.approvalIds)
    await answerPendingToolApproval(
      db,
      { ...scope, conversationId },
      { approvalId, approved: false, reason: UNANSWERED_REASON, answeredAt: now },
    );
}

/** The approval id of a tool part waiting in `approval-requested`. */
function pendingApprovalId(part: Part): string | undefined {
  if (part.state !== 'approval-requested') return undefined;
  const approval = part.approval as { id?: unknown } | undefined;
  return typeof approval?.id === 'string' ? approval.id : undefined;
}
