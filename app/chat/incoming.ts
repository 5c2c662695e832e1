import type { Static } from '@sinclair/typebox';
import { ValidationError } from '../core/errors.ts';
import { MAX_DENIAL_REASON_CHARS } from '../tools/approvals.ts';
import { approvalReasonTooLong } from '../tools/errors.ts';
import type { ChatBody } from './schemas.ts';

/** Longest user message the service accepts, in characters. */
export const MAX_USER_TEXT_CHARS = 32_000;

export type ApprovalAnswer = { approvalId: string; approved: boolean; reason?: string };

/**
 * What a chat request contributes (docs/chat.md, "Trust boundary"): a new user message's text,
 * answers to pending approvals, or a request to answer the last user message again. Everything
 * else in `messages` (earlier turns, assistant text, tool outputs) is ignored: the history comes
 * from the service's store.
 */
export type Incoming = { kind: 'user'; text: string } | { kind: 'answers'; answers: ApprovalAnswer[] } | { kind: 'regenerate' };

type Body = Static<typeof ChatBody>;
type Part = Record<string, unknown>;

export function readIncoming(body: Body): Incoming {
  if (body.trigger === 'regenerate-message') return { kind: 'regenerate' };
  const index = body.messages.length - 1;
  const last = body.messages[index]!;
  const parts = last.parts as Part[];
  if (last.role === 'user') {
    const text = parts
      .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
      .join('\n')
      .replaceAll('\u0000', '\ufffd');
    if (text.trim() === '') throw invalid(index, 'a user message needs a non-empty text part');
    if (text.length > MAX_USER_TEXT_CHARS) throw invalid(index, `a user message is at most ${MAX_USER_TEXT_CHARS} characters`);
    return { kind: 'user', text };
  }
  if (last.role === 'assistant') {
    const answers = parts.flatMap(answerOf);
    if (answers.length === 0) throw invalid(index, 'the last message must be a user message or answer a pending approval');
    // Checked for every answer before any is used (the reason check leaves the approval pending).
    if (answers.some((answer) => answer.reason !== undefined && [...answer.reason].length > MAX_DENIAL_REASON_CHARS))
      throw approvalReasonTooLong(MAX_DENIAL_REASON_CHARS);
    return { kind: 'answers', answers };
  }
  throw invalid(index, 'the last message must be a user message or answer a pending approval');
}

/** A tool part in `approval-responded`, as `addToolApprovalResponse` leaves it. */
function answerOf(part: Part): ApprovalAnswer[] {
  const isTool = typeof part.type === 'string' && (part.type.startsWith('tool-') || part.type === 'dynamic-tool');
  if (!isTool || part.state !== 'approval-responded') return [];
  const approval = part.approval as Record<string, unknown> | null | undefined;
  if (!approval || typeof approval !== 'object') return [];
  if (typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') return [];
  if (approval.reason !== undefined && typeof approval.reason !== 'string') return [];
  return [
    { approvalId: approval.id, approved: approval.approved, ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}) },
  ];
}

const invalid = (index: number, message: string) => new ValidationError([{ path: ['messages', String(index)], message }]);
