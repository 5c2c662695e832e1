import type {
  EmbeddingModelV3Middleware,
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { promptTokens } from './tokens.ts';
import { INPUT_ESTIMATE_MARGIN, reserveCall, settleCall, type ReserveDeps } from './reservations.ts';

/*
 * The meter of a language model: a middleware every model call of the service goes through (chat
 * steps, titles, guardrail checks). Before a call it reserves the call's worst case against an
 * enforced budget; after it, it records the call's usage as the provider reported it and settles
 * the reservation. Writing the usage rows is `recordModelCalls` (app/metering/record.ts).
 */

/** One model call as measured: tokens as the provider reported them and the time to its last chunk. */
export type MeteredCall = {
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  latencyMs: number;
  finishedAt: Date;
};

export type Meter = {
  middleware: LanguageModelV3Middleware;
  /** The calls whose usage the provider reported, in order. */
  calls: MeteredCall[];
  /** The reservations taken (an enforced budget), released when the calls' usage is written. */
  reservations: string[];
};

/**
 * A middleware that meters every call of `account`'s model:
 * - under an enforced budget, reserves the call's worst case first (its input estimate times
 *   `INPUT_ESTIMATE_MARGIN` and its output limit; throwing 402 `AI.BUDGET_EXCEEDED` instead of
 *   making a call that could cross the limit); a call without an output limit is sent with
 *   `AI_BUDGET_OUTPUT_TOKENS`, so the worst case is a bound;
 * - records the usage the provider reports (streamed: its `finish` part, which a stopped turn still
 *   records; generated: the result), input tokens counted without the cached ones, and the
 *   milliseconds from sending the request to its last part;
 * - settles a call's reservation to its actual cost as soon as the provider reports it when it
 *   must (`mustSettle`: the report is past the worst case, or the turn goes on with tools); the
 *   statement that writes the usage rows releases it.
 */
export function modelMeter(deps: ReserveDeps, account: { organizationId: string; modelId: string }): Meter {
  const calls: MeteredCall[] = [];
  const reservations: string[] = [];

  async function reserve(params: LanguageModelV3CallOptions): Promise<Reserved> {
    const outputTokens = params.maxOutputTokens ?? deps.config.ai.budgetOutputTokens;
    let worst: WorstCase | undefined;
    const id = await reserveCall(deps, {
      ...account,
      worstCase: () =>
        (worst = { inputTokens: Math.ceil(promptTokens(params.prompt, params.tools) * INPUT_ESTIMATE_MARGIN), outputTokens }),
    });
    if (id === null || worst === undefined) return { reservation: null, sent: params };
    reservations.push(id);
    return {
      reservation: { id, worst },
      sent: params.maxOutputTokens === undefined ? { ...params, maxOutputTokens: outputTokens } : params,
    };
  }

  function measured(
    usage: LanguageModelV3Usage,
    finishReason: LanguageModelV3FinishReason,
    reservation: Reservation | null,
    started: number,
  ) {
    const call = { ...tokensOf(usage), latencyMs: Math.round(performance.now() - started), finishedAt: deps.clock() };
    calls.push(call);
    if (reservation !== null && mustSettle(reservation.worst, call, finishReason))
      void settleCall(deps, reservation.id, { modelId: account.modelId, ...call });
  }

  const middleware: LanguageModelV3Middleware = {
    specificationVersion: 'v3',
    wrapStream: async ({ params, model }) => {
      const { reservation, sent } = await reserve(params);
      const started = performance.now();
      const result = await model.doStream(sent);
      let reported = false;
      // A pulled stream over the call's reader (a pipe through a TransformStream holds several
      // times its memory while the answer streams).
      const reader = result.stream.getReader();
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done) return controller.close();
          const part = next.value;
          // Recorded when the provider reports the usage (its last part): a turn stopped after it
          // still records the call (the stop route saves "the usage already reported").
          if (part.type === 'finish' && !reported) {
            reported = true;
            measured(part.usage, part.finishReason, reservation, started);
          }
          controller.enqueue(part);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { ...result, stream };
    },
    wrapGenerate: async ({ params, model }) => {
      const { reservation, sent } = await reserve(params);
      const started = performance.now();
      const result = await model.doGenerate(sent);
      measured(result.usage, result.finishReason, reservation, started);
      return result;
    },
  };
  return { middleware, calls, reservations };
}

type WorstCase = { inputTokens: number; outputTokens: number };
type Reservation = { id: string; worst: WorstCase };
type Reserved = { reservation: Reservation | null; sent: LanguageModelV3CallOptions };

/**
 * Whether a call's reservation is settled as soon as the provider reports its usage (one statement
 * more), rather than held at its worst case until the statement that writes the usage row releases
 * it, moments later:
 * - the provider reported more than the worst case reserved (input and cached tokens past the
 *   reserved input: `reserveUsage` prices each reserved input token at the dearer of the two
 *   prices; or output past the limit sent): the excess is held before any other call is admitted
 *   (a settlement deferred to the usage row's write let 30 parallel turns pass a $0.02 limit by 3 %);
 * - the call asked for tools (`tool-calls`): the turn goes on with the tools and another call, and
 *   its worst case would be held, needlessly, through both.
 * A call within its worst case that ends its turn is not settled: the hold only ever stays above
 * the cost, so no call is admitted that an immediate settlement would have refused.
 */
export function mustSettle(
  worst: WorstCase,
  reported: { inputTokens: number; cacheReadTokens: number; outputTokens: number },
  finishReason: LanguageModelV3FinishReason,
): boolean {
  const beyond = reported.inputTokens + reported.cacheReadTokens > worst.inputTokens || reported.outputTokens > worst.outputTokens;
  return beyond || finishReason.unified === 'tool-calls';
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

/** The meter of an embedding model: every `doEmbed` call's tokens and latency (reservations are the caller's: `embedTexts`). */
export function embeddingMeter(deps: Pick<ReserveDeps, 'clock'>): { middleware: EmbeddingModelV3Middleware; calls: MeteredCall[] } {
  const calls: MeteredCall[] = [];
  const middleware: EmbeddingModelV3Middleware = {
    specificationVersion: 'v3',
    wrapEmbed: async ({ doEmbed }) => {
      const started = performance.now();
      const result = await doEmbed();
      calls.push({
        inputTokens: result.usage?.tokens ?? 0,
        cacheReadTokens: 0,
        outputTokens: 0,
        latencyMs: Math.round(performance.now() - started),
        finishedAt: deps.clock(),
      });
      return result;
    },
  };
  return { middleware, calls };
}
