import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { countTokens as CountTokensOf } from 'gpt-tokenizer/encoding/o200k_base';

type CountTokens = typeof CountTokensOf;
/** The tokenizer's ranks (a few MB, ~170 ms to load) are loaded at the first estimate, not at every start. */
let tokenizer: CountTokens | undefined;
const countTokens: CountTokens = (text, options) => {
  tokenizer ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens }).countTokens;
  return tokenizer(text, options);
};

/*
 * Token estimates (the o200k tokenizer, GPT-4o's, through `gpt-tokenizer`): what the context
 * window keeps and what a budget reserves before a model call is sent.
 */

/** Chat format tokens around each message (role and separators, as OpenAI counts them). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Text is tokenized in slices of this many characters: BPE cost grows with the square of a long run of letters. */
const SLICE_CHARS = 2_000;
/** Longer text is tokenized up to here and the rest estimated at the same characters per token. */
const EXACT_CHARS = 64 * 1024;
const MAX_REMEMBERED = 20_000;
/** Estimates by the SHA-256 of the text: a turn's later calls resend the same messages. */
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

/**
 * Estimated input tokens of one model call as the provider receives it: every message of the
 * prompt (its text, tool calls and results as JSON) with its overhead, and the offered tools'
 * definitions as JSON.
 */
export function promptTokens(prompt: LanguageModelV3Prompt, tools: readonly unknown[] | undefined): number {
  let tokens = 0;
  for (const message of prompt) {
    tokens += MESSAGE_OVERHEAD_TOKENS;
    if (typeof message.content === 'string') {
      tokens += estimateTokens(message.content);
      continue;
    }
    for (const part of message.content)
      tokens += estimateTokens(part.type === 'text' || part.type === 'reasoning' ? part.text : JSON.stringify(part));
  }
  if (tools && tools.length > 0) tokens += estimateTokens(JSON.stringify(tools));
  return tokens;
}
