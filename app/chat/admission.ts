import type { Static } from '@sinclair/typebox';
import { checkBudgetBeforeTurn } from '../analytics/budget/checker.ts';
import { AI_BUDGET_EXCEEDED } from '../analytics/budget/errors.ts';
import type { Config } from '../config.ts';
import type { AppDeps } from '../core/deps.ts';
import { ValidationError } from '../core/errors.ts';
import { MAX_DENIAL_REASON_CHARS } from '../tools/approvals.ts';
import { approvalReasonTooLong } from '../tools/errors.ts';
import { AI_MODEL_NOT_AVAILABLE, modelNotAvailable } from '../metering/errors.ts';
import { AI_CONVERSATION_FULL, conversationFull, MAX_CONVERSATION_MESSAGES } from './errors.ts';
import { DEMO_MODEL_ID } from '../metering/demo-model.ts';
import type { ChatModel } from '../metering/models.ts';
import type { ChatBody } from './schemas.ts';
import { isPriced } from '../metering/prices.ts';

/*
 * What a chat request may bring (`readIncoming`, docs/chat.md "Trust boundary") and the checks its
 * turn passes before the model is called (`admitTurn`).
 */

/** What `admitTurn` answers, for the chat route's declaration. */
export const ADMISSION_ERRORS = [AI_MODEL_NOT_AVAILABLE, AI_BUDGET_EXCEEDED, AI_CONVERSATION_FULL];

/**
 * Stored bytes of history a turn reads at most (the newest messages, the newest always): 8 bytes
 * per token of `AI_CONTEXT_MAX_TOKENS`, above what any text takes per token but the most repetitive
 * (English runs about 4-5 bytes per o200k token, JSON 4, code 3.5, numbers 2.5), so the context
 * window is cut by `fitContext`, never by this read.
 */
export const HISTORY_BYTES_PER_TOKEN = 8;
export const historyBytesFor = (config: Pick<Config, 'ai'>) => config.ai.contextMaxTokens * HISTORY_BYTES_PER_TOKEN;

/**
 * The checks a turn passes before any stream starts and before the provider is called, after
 * the agent, body and provider checks (docs/chat.md, "Before the model is called"):
 * - on the platform key, the model must be in the price list (400 `AI.MODEL_NOT_AVAILABLE`): the
 *   platform never pays for a model it cannot price. The organization's own key (BYOK) runs any
 *   model, and the offline demo model costs nothing;
 * - an enforced budget must not be used up (402 `AI.BUDGET_EXCEEDED`, app/analytics/budget/checker.ts);
 * - a new user message must leave room for itself and its answer in the conversation (409
 *   `AI.CONVERSATION_FULL`); `storedMessages` is null for approval answers and regenerate, which add none.
 */
export async function admitTurn(
  deps: AppDeps,
  turn: {
    organizationId: string;
    model: Pick<ChatModel, 'modelId' | 'source'>;
    storedMessages: number | null;
    /** `startPriceCheck`'s answer, read beside the turn's other reads; absent: read here. */
    priced?: Promise<boolean | null>;
  },
): Promise<void> {
  const { model } = turn;
  const platformPays = model.source === 'system' && model.modelId !== DEMO_MODEL_ID;
  const early = platformPays ? await turn.priced?.catch(() => null) : null;
  // Both reads at once; their failures are answered in this order.
  const [priced, budget] = await Promise.allSettled([
    platformPays ? (early ?? isPriced(deps, model.modelId)) : true,
    checkBudgetBeforeTurn(deps, turn.organizationId),
  ]);
  if (priced.status === 'rejected') throw priced.reason;
  if (!priced.value) throw modelNotAvailable(model.modelId);
  if (budget.status === 'rejected') throw budget.reason;
  if (turn.storedMessages !== null && turn.storedMessages + 2 > MAX_CONVERSATION_MESSAGES) throw conversationFull();
}

/**
 * The price-list check of `admitTurn`, started with the turn's other reads (the agent was found by
 * the route's scope): beside the organization's key read, not after it, so the model call waits on
 * one round trip less in series. It reads whenever the platform may pay (a gateway key, a model
 * other than the demo model) and is kept only when the platform does (no stored key): a turn on the
 * organization's own key discards it, one cheap read for one wait less on every turn the platform
 * pays. Null when the platform does not pay or either read failed (`admitTurn` then reads itself
 * if it has to).
 */
export function startPriceCheck(
  deps: Pick<AppDeps, 'db' | 'config' | 'clock'>,
  agent: { modelId: string | null },
  storedKey: Promise<unknown>,
): Promise<boolean | null> {
  const modelId = agent.modelId ?? deps.config.ai.defaultModel;
  if (deps.config.ai.gatewayApiKey === undefined || modelId === DEMO_MODEL_ID) return Promise.resolve(null);
  const priced = isPriced(deps, modelId);
  return Promise.all([storedKey, priced]).then(
    ([key, isPriced]) => (key === null ? isPriced : null),
    () => null,
  );
}

/** Longest user message the service accepts, in characters. */
export const MAX_USER_TEXT_CHARS = 32_000;

export type ApprovalAnswer = { approvalId: string; approved: boolean; reason?: string };

/**
 * What a chat request contributes (docs/chat.md, "Trust boundary"): a new user message's text,
 * answers to pending approvals, or a request to answer the last user message again. Everything
 * else in `messages` (earlier turns, assistant text, tool outputs) is ignored: the history comes
 * from the service's store.
 */
export type Incoming =
  | { kind: 'user'; text: string }
  | { kind: 'answers'; answers: ApprovalAnswer[] }
  | { kind: 'regenerate' }
  /** Approvals the organization's staff answered (already recorded): the end user's turn goes on. */
  | { kind: 'answered'; answers: ApprovalAnswer[] };

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
