import type { ModelMessage, ToolResultPart } from 'ai';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from '../metering/tokens.ts';

/**
 * The context window of a model call (docs/chat.md, "A context that fits"): the newest whole
 * messages that fit `AI_CONTEXT_MAX_TOKENS`, estimated per message (`estimateTokens`, remembered by
 * content, so a turn counts only what it has not seen before).
 */

/** Estimated tokens of one offered tool's name, description and input schema. */
export const TOOL_RESERVE_TOKENS = 150;
/** The share of the window the results of one model step may fill together (docs/chat.md, "A context that fits"). */
export const TOOL_RESULTS_SHARE = 1 / 4;

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

/** `text` cut to at most `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

type Output = ToolResultPart['output'];

/** The text a tool result puts in the model's context, for the outputs that are text or JSON. */
function outputText(output: Output): string | undefined {
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  return undefined;
}

/** Estimated tokens of `text` cut to about `allowance` tokens, with a note the model reads, cut again while the estimate is over. */
function cutToTokens(text: string, tokens: number, allowance: number): string {
  const note = ` [cut to fit the context window: about ${allowance} of ${tokens} tokens]`;
  const room = Math.max(0, allowance - estimateTokens(note));
  let chars = Math.floor((text.length * room) / tokens);
  let cut = cutText(text, chars);
  // Tokens are not spread evenly over the text: shrink by the ratio seen until the estimate fits (a few rounds).
  for (let round = 0; round < 8 && chars > 0; round += 1) {
    const used = estimateTokens(cut);
    if (used <= room) break;
    chars = Math.floor((chars * room) / used) - 1;
    cut = cutText(text, chars);
  }
  return `${cut}${note}`;
}

/**
 * One unit with its tool results cut to their share: together they get at most
 * `TOOL_RESULTS_SHARE` of `maxTokens`, shared fairly (a result under an even share of what is
 * left keeps its whole text and leaves the rest to the others); a longer one is cut, as text,
 * and says so. The stored result is not touched, only what this call is sent.
 */
function fitToolResults(unit: ModelMessage[], maxTokens: number): ModelMessage[] {
  const results: { message: number; part: number; text: string; tokens: number }[] = [];
  unit.forEach((message, index) => {
    if (message.role !== 'tool') return;
    message.content.forEach((part, at) => {
      const text = part.type === 'tool-result' ? outputText(part.output) : undefined;
      if (text !== undefined) results.push({ message: index, part: at, text, tokens: estimateTokens(text) });
    });
  });
  let left = Math.floor(maxTokens * TOOL_RESULTS_SHARE);
  const allowances = new Map<(typeof results)[number], number>();
  const smallestFirst = [...results].sort((a, b) => a.tokens - b.tokens);
  smallestFirst.forEach((result, index) => {
    const allowance = Math.floor(left / (smallestFirst.length - index));
    if (result.tokens <= allowance) left -= result.tokens;
    else {
      allowances.set(result, allowance);
      left -= allowance;
    }
  });
  if (allowances.size === 0) return unit;
  const fitted = unit.map((message) => (message.role === 'tool' ? { ...message, content: [...message.content] } : message));
  for (const [result, allowance] of allowances) {
    const message = fitted[result.message] as Extract<ModelMessage, { role: 'tool' }>;
    const part = message.content[result.part] as ToolResultPart;
    const type = part.output.type === 'error-text' || part.output.type === 'error-json' ? 'error-text' : 'text';
    message.content[result.part] = { ...part, output: { type, value: cutToTokens(result.text, result.tokens, allowance) } };
  }
  return fitted;
}

/**
 * The messages one model call is given: every unit's tool results cut to their share of the
 * window (`fitToolResults`), then always the last unit and the last user message (the turn's
 * request), then the newest other units while the estimate of everything (the system message, a
 * reserve per offered tool, the kept messages) stays within `maxTokens`; the first unit that does
 * not fit ends the search, so what is sent is contiguous up to those two. In order.
 */
export function fitContext(
  messages: readonly ModelMessage[],
  window: { maxTokens: number; system: string; toolCount: number },
): ModelMessage[] {
  const units = unitsOf(messages).map((unit) => fitToolResults(unit, window.maxTokens));
  if (units.length <= 1) return units.flat();
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
