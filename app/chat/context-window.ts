import { createHash } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * The context window of a model call (docs/chat.md, "A context that fits"): the newest whole
 * messages that fit `AI_CONTEXT_MAX_TOKENS`, estimated with the o200k tokenizer (GPT-4o's, through
 * `gpt-tokenizer`), counted per message and remembered by content, so a turn counts only what it
 * has not seen before.
 */

/** Chat format tokens around each message (role and separators, as OpenAI counts them). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Estimated tokens of one offered tool's name, description and input schema. */
export const TOOL_RESERVE_TOKENS = 150;
/** Text is tokenized in slices of this many characters: BPE cost grows with the square of a long run of letters. */
const SLICE_CHARS = 2_000;
/** Longer text is tokenized up to here and the rest estimated at the same characters per token. */
const EXACT_CHARS = 64 * 1024;
const MAX_REMEMBERED = 20_000;
const remembered = new Map<string, number>();
/** User text may hold `<|endoftext|>` and the like: counted as text, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Estimated tokens of `text` (o200k_base; within a few tokens of the real count below `EXACT_CHARS`). */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const key = createHash('sha256').update(text).digest('base64');
  const known = remembered.get(key);
  if (known !== undefined) return known;
  const exact = Math.min(text.length, EXACT_CHARS);
  let tokens = 0;
  for (let at = 0; at < exact; at += SLICE_CHARS) tokens += countTokens(text.slice(at, Math.min(at + SLICE_CHARS, exact)), AS_TEXT);
  if (exact < text.length) tokens = Math.ceil((tokens * text.length) / exact);
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, tokens);
  return tokens;
}

/** The text a message puts in the model's context: its text, tool calls (name and input) and tool results. */
function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          return part.text;
        case 'tool-call':
          return `${part.toolName} ${JSON.stringify(part.input ?? null)}`;
        case 'tool-result':
          return part.output.type === 'text' || part.output.type === 'error-text' ? part.output.value : JSON.stringify(part.output);
        default:
          return JSON.stringify(part);
      }
    })
    .join('\n');
}

export const messageTokens = (message: ModelMessage) => MESSAGE_OVERHEAD_TOKENS + estimateTokens(textOf(message));

/**
 * Splits messages into units that are kept or dropped whole: an assistant message with the tool
 * messages after it (its calls' results and approval answers), or one other message.
 */
function unitsOf(messages: readonly ModelMessage[]): ModelMessage[][] {
  const units: ModelMessage[][] = [];
  for (const message of messages) {
    const last = units.at(-1);
    if (message.role === 'tool' && last !== undefined && last[0]!.role === 'assistant') last.push(message);
    else units.push([message]);
  }
  return units;
}

/**
 * The messages one model call is given: always the last unit and the last user message (the
 * turn's request), then the newest other units while the estimate of everything (the system
 * message, a reserve per offered tool, the kept messages) stays within `maxTokens`; the first unit
 * that does not fit ends the search, so what is sent is contiguous up to those two. In order.
 */
export function fitContext(
  messages: readonly ModelMessage[],
  window: { maxTokens: number; system: string; toolCount: number },
): ModelMessage[] {
  const units = unitsOf(messages);
  if (units.length <= 1) return [...messages];
  const lastUser = units.findLastIndex((unit) => unit[0]!.role === 'user');
  const cost = (unit: ModelMessage[]) => unit.reduce((sum, message) => sum + messageTokens(message), 0);
  const keep = new Set<number>([units.length - 1]);
  if (lastUser >= 0) keep.add(lastUser);
  let used = estimateTokens(window.system) + MESSAGE_OVERHEAD_TOKENS + window.toolCount * TOOL_RESERVE_TOKENS;
  for (const index of keep) used += cost(units[index]!);
  for (let index = units.length - 2; index >= 0; index -= 1) {
    if (keep.has(index)) continue;
    used += cost(units[index]!);
    if (used > window.maxTokens) break;
    keep.add(index);
  }
  return units.flatMap((unit, index) => (keep.has(index) ? unit : []));
}

/** A `prepareStep` for `streamText`: every model call of the turn gets `fitContext` of its messages. */
export function fitEveryCall(window: { maxTokens: number; system: string; toolCount: number }) {
  return ({ messages }: { messages: ModelMessage[] }) => ({ messages: fitContext(messages, window) });
}
