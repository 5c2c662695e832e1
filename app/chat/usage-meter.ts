import type { LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';

/** One model call as measured: tokens as the provider reported them and the time to its last chunk. */
export type MeteredCall = {
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  latencyMs: number;
  finishedAt: Date;
};

/**
 * A language-model middleware that records every streamed call whose usage the provider
 * reported: its usage from the `finish` part and the milliseconds from sending the request to it
 * (the stream's last part).
 * Input tokens are counted without the cached ones (the usage event's convention).
 */
export function usageMeter(clock: () => Date): { middleware: LanguageModelV3Middleware; calls: MeteredCall[] } {
  const calls: MeteredCall[] = [];
  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapStream: async ({ doStream }) => {
      const started = performance.now();
      const result = await doStream();
      let usage: LanguageModelV3Usage | undefined;
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          // Recorded when the provider reports the usage (its last part): a turn stopped after it
          // still records the call (the stop route saves "the usage already reported").
          transform(part, controller) {
            if (part.type === 'finish' && !usage) {
              usage = part.usage;
              calls.push({ ...tokensOf(usage), latencyMs: Math.round(performance.now() - started), finishedAt: clock() });
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    },
  };
  return { middleware, calls };
}

function tokensOf(usage: LanguageModelV3Usage) {
  const cacheReadTokens = usage.inputTokens.cacheRead ?? 0;
  const total = usage.inputTokens.total ?? 0;
  return {
    inputTokens: usage.inputTokens.noCache ?? Math.max(0, total - cacheReadTokens),
    cacheReadTokens,
    outputTokens: usage.outputTokens.total ?? 0,
  };
}
