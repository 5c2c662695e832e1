import type { UIMessageChunk } from 'ai';
import type { Agent } from '../../sql/agents.ts';
import { findMessageModeration, setMessageModeration, type StoredMessage } from '../../sql/chat-conversations.ts';
import type { AppDeps } from '../core/deps.ts';
import { hasBlockedTerm, moderate, refusalStream, type GuardrailScope, type GuardrailVerdict } from './guardrails.ts';
import type { PreparedTurn } from './history.ts';

/*
 * Which message a turn answers, and the guardrails' verdict on it (docs/agents-and-tools.md,
 * "Guardrails"), whatever started the turn: a new user message, a regenerate, or approval answers
 * (the owner's in the stream, or the staff's continuation, app/chat/staff/continuation.ts).
 */

/** What a refused answer's `metadata.guardrail` says, as a verdict; undefined when it was no refusal. */
function refusalVerdict(metadata: Record<string, unknown> | null | undefined): Extract<GuardrailVerdict, { tripped: true }> | undefined {
  const guardrail = metadata?.guardrail as { tripped?: unknown; by?: unknown; failure?: unknown } | undefined;
  if (guardrail?.tripped !== true) return undefined;
  // A moderation check that could not answer gave no verdict: the message is checked again.
  if (guardrail.failure !== undefined) return undefined;
  return guardrail.by === 'moderation' ? { tripped: true, by: 'moderation' } : { tripped: true, by: 'blocked_term' };
}

const textOf = (message: StoredMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');

/**
 * The verdict on the message the turn answers: the last user message of its history (a new
 * message's is that message).
 * - A regenerate of a refused answer keeps that answer's verdict: refused again, nothing checked
 *   (a refusal for a failed moderation check had no verdict: it is checked again).
 * - The blocked terms are matched every time (no model call), so a term added since refuses too.
 * - The moderation model's verdict is reused when one of the same model is stored on the message;
 *   otherwise the model is asked and its verdict stored (`chat_messages.moderation`). A check that
 *   fails refuses and stores nothing. `isNew`: the message was stored by this turn (no verdict yet).
 */
export async function judgeTurn(
  deps: AppDeps,
  agent: Agent,
  turn: { prepared: PreparedTurn; isNew: boolean },
  scope: GuardrailScope,
): Promise<GuardrailVerdict> {
  const { prepared } = turn;
  const kept = refusalVerdict(prepared.replacedMetadata);
  if (kept) return kept;
  const message = prepared.history.findLast((stored) => stored.role === 'user');
  if (!message) return { tripped: false };
  const text = textOf(message);
  if (hasBlockedTerm(agent, text)) return { tripped: true, by: 'blocked_term' };
  const modelId = agent.guardrails.moderationModel;
  if (modelId === null) return { tripped: false };
  if (!turn.isNew) {
    const stored = await findMessageModeration(deps.db, await prepared.conversationId, message.id);
    if (stored?.model === modelId) return stored.unsafe ? { tripped: true, by: 'moderation' } : { tripped: false };
  }
  const verdict = await moderate(deps, agent, modelId, text, scope);
  if (!('failure' in verdict && verdict.failure !== undefined)) {
    try {
      await setMessageModeration(deps.db, await prepared.conversationId, message.id, { model: modelId, unsafe: verdict.tripped });
    } catch (error) {
      // Not stored: the next turn that answers this message asks the model again.
      deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'moderation verdict not stored');
    }
  }
  return verdict;
}

/** The refused turn's answer: a new message, or the answered assistant message continued with the refusal (approval answers). */
export function refusalOf(
  deps: AppDeps,
  agent: Agent,
  prepared: PreparedTurn,
  verdict: Extract<GuardrailVerdict, { tripped: true }>,
): ReadableStream<UIMessageChunk> {
  const last = prepared.history.at(-1);
  const continuing = last?.role === 'assistant' ? last : undefined;
  return refusalStream(deps, { agent, conversationId: prepared.conversationId, verdict, ...(continuing ? { continuing } : {}) });
}
