import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { estimateTokens } from './tokens.ts';

/** Most bytes (UTF-8) of text, reasoning and tool input one assistant answer stores, over all its model calls. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The longest start of `text` whose UTF-8 takes at most `bytes` (never half a character). */
function cutToBytes(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * A language-model middleware that ends a turn's answer at `maxBytes` (docs/chat.md, "Bounds"):
 * the deltas of all the turn's model calls are counted; the one that reaches the bound is cut,
 * open text and reasoning parts are closed, the call finishes with reason `length` (so the turn
 * stops and its UI stream's `finish` says `length`) and the provider's stream is cancelled. The
 * provider's own token counts never arrive for a cut call: its usage is the o200k estimate of
 * the prompt and of the text kept.
 */
export function answerCap(maxBytes = MAX_ANSWER_BYTES): LanguageModelV3Middleware {
  let used = 0;
  return {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      const reader = result.stream.getReader();
      const open = new Map<string, 'text' | 'reasoning'>();
      let kept = '';
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done) return controller.close();
          const part = next.value;
          if (part.type === 'text-start' || part.type === 'reasoning-start')
            open.set(part.id, part.type === 'text-start' ? 'text' : 'reasoning');
          if (part.type === 'text-end' || part.type === 'reasoning-end') open.delete(part.id);
          if (part.type !== 'text-delta' && part.type !== 'reasoning-delta' && part.type !== 'tool-input-delta')
            return controller.enqueue(part);
          const size = Buffer.byteLength(part.delta);
          if (used + size <= maxBytes) {
            used += size;
            if (part.type === 'text-delta') kept += part.delta;
            return controller.enqueue(part);
          }
          const rest = cutToBytes(part.delta, maxBytes - used);
          used = maxBytes;
          if (rest !== '') controller.enqueue({ ...part, delta: rest });
          if (part.type === 'text-delta') kept += rest;
          for (const [id, kind] of open) controller.enqueue({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id });
          const input = estimateTokens(JSON.stringify(params.prompt));
          const output = estimateTokens(kept);
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'length', raw: undefined },
            usage: {
              inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: undefined },
              outputTokens: { total: output, text: output, reasoning: undefined },
            },
          });
          controller.close();
          await reader.cancel();
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { ...result, stream };
    },
  };
}
