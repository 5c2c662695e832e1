import type { Agent } from '../../sql/agents.ts';
import { conversationTitleWrite, type ConversationScope } from '../../sql/chat-conversations.ts';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { callModel } from '../metering/call.ts';
import { modelFor } from '../metering/models.ts';
import { accountOf } from '../metering/record.ts';
import { DEMO_MODEL_ID } from '../metering/demo-model.ts';
import { isPriced } from '../metering/prices.ts';

/*
 * Conversation titles (docs/agents-and-tools.md, "Conversation titles"): a new conversation is
 * titled with its first message's first line at once (`titleOf`), and then by one short model
 * call run beside its first turn (`generateTitle`), which never delays or breaks the turn.
 */

/** Most characters of a title. */
export const TITLE_CHARS = 80;
/** Most characters of the first message the title model reads. */
export const TITLE_INPUT_CHARS = 2_000;
/** Output tokens the title call may write. */
const TITLE_OUTPUT_TOKENS = 30;
/** The longest the title call may take; past it the first line stays. */
export const TITLE_TIMEOUT_MS = 15_000;

export const TITLE_PROMPT =
  'Write a short title, at most eight words, for a conversation that begins with the message below. ' +
  'Answer with the title only: no quotes, no final period.';

/** The first line of the first message, cut at 80 characters (no model call). */
export function titleOf(text: string): string {
  const line = text.trim().split('\n', 1)[0]!.trim();
  return cut(line);
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS - 1).join('')}…` : text;
}

/** A model's answer as a title: its first non-empty line, without quotes or markup around it, at most 80 characters; null when nothing is left. */
export function titleFromAnswer(answer: string): string | null {
  const line = answer
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== '');
  if (line === undefined) return null;
  const bare = trimmed(line.replace(/^title:/i, ''), '"\'*`# ', '"\'*`. ');
  return bare === '' ? null : cut(bare);
}

/** `text` without the characters of `leading` at its start and of `trailing` at its end (a scan, no pattern). */
function trimmed(text: string, leading: string, trailing: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (leading.includes(text[start]!) || /\s/.test(text[start]!))) start += 1;
  while (end > start && (trailing.includes(text[end - 1]!) || /\s/.test(text[end - 1]!))) end -= 1;
  return text.slice(start, end);
}

/** Title models already reported as unpriced (each is logged once per process). */
const reportedUnpriced = new Set<string>();

/**
 * Titles a new conversation from its first message with `AI_TITLE_MODEL` (default: the agent's
 * model): one non-streamed call of at most `TITLE_OUTPUT_TOKENS`, bounded by `TITLE_TIMEOUT_MS`,
 * on the organization's key or the platform's, recorded as `title_generation`. Stores and answers
 * the title, or null when there is none (the demo model, an unpriced model on the platform's key,
 * a failure): the first line stays. Never throws.
 */
export async function generateTitle(
  deps: AppDeps,
  turn: { owner: ConversationScope; agent: Agent; storedKey: ProviderKeyRow | null },
  conversationId: Promise<string>,
  firstMessage: string,
): Promise<string | null> {
  const modelId = deps.config.ai.titleModel ?? turn.agent.modelId ?? deps.config.ai.defaultModel;
  const signal = AbortSignal.timeout(TITLE_TIMEOUT_MS);
  try {
    const model = modelFor(deps, turn.owner.organizationId, modelId, signal, turn.storedKey);
    const account = { ...accountOf(turn.owner), actionType: 'title_generation' as const };
    // The title is written in the statement of the call's usage row.
    const alongside = async (title: string | null | undefined) => (title ? conversationTitleWrite(await conversationId, title) : undefined);
    return await callModel(deps, model, { account, alongside }, async (ai) => {
      if (model.modelId === DEMO_MODEL_ID) return null;
      if (model.source === 'system' && !(await isPriced(deps, model.modelId))) {
        if (!reportedUnpriced.has(model.modelId)) {
          reportedUnpriced.add(model.modelId);
          deps.logger.warn(
            { modelId: model.modelId },
            'title model is not in the price list: conversations keep their first line as title',
          );
        }
        return null;
      }
      const result = await ai.generateText({
        system: TITLE_PROMPT,
        prompt: [...firstMessage].slice(0, TITLE_INPUT_CHARS).join(''),
        maxOutputTokens: TITLE_OUTPUT_TOKENS,
        abortSignal: signal,
      });
      return titleFromAnswer(result.text);
    });
  } catch (error) {
    deps.logger.info({ agentId: turn.agent.id, err: error instanceof Error ? error.name : 'unknown' }, 'conversation title not made');
    return null;
  }
}
