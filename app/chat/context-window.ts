import type { ModelMessage } from 'ai';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from '../metering/tokens.ts';

/**
 * The context window of a model call (docs/chat.md, "A context that fits"): the newest whole
 * messages that fit `AI_CONTEXT_MAX_TOKENS`, estimated per message (`estimateTokens`, remembered by
 * content, so a turn counts only what it has not seen before).
 */

/** Estimated tokens of one offered tool's name, description and input schema. */
export const TOOL_RESERVE_TOKENS = 150;

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
