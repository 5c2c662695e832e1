import { embedMany, generateText, streamText, type ToolSet } from 'ai';
import type { FragmentSqlToken } from 'slonik';
import type { AppDeps } from '../core/deps.ts';
import type { ChatModel, EmbeddingModel } from './models.ts';
import { recordModelCalls, type CallAccount } from './record.ts';
import { reserveCall } from './reservations.ts';

/*
 * The one way the service calls a model (docs/analytics.md, "One meter"): `callModel` reserves,
 * calls, records the calls' usage rows in `finally` and releases their reservations, then closes
 * the model's connections. A model is made by `modelFor` / `embeddingModelFor`
 * (app/metering/models.ts); the AI SDK's `generateText`, `streamText` and `embedMany` are called
 * only here, on the handle `run` receives (test/metering/one-meter.test.ts keeps it so).
 */

type Omitted = 'model' | 'maxRetries';
/** `Omit` over each member of a union (a prompt is `prompt` or `messages`). */
type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What a language model's handle calls: the AI SDK's functions on the call's model, without retries. */
export type LanguageCalls = {
  generateText<TOOLS extends ToolSet = ToolSet>(
    params: Without<Parameters<typeof generateText<TOOLS>>[0], Omitted>,
  ): ReturnType<typeof generateText<TOOLS>>;
  streamText<TOOLS extends ToolSet = ToolSet>(
    params: Without<Parameters<typeof streamText<TOOLS>>[0], Omitted>,
  ): ReturnType<typeof streamText<TOOLS>>;
};
/** What an embedding model's handle calls. */
export type EmbeddingCalls = {
  embedMany(params: Without<Parameters<typeof embedMany>[0], Omitted>): ReturnType<typeof embedMany>;
};

/** Whose calls and what for (every usage row of the call carries it), and how the rows are written. */
export type CallOptions<T> = {
  account: Omit<CallAccount, 'modelId' | 'source'>;
  /**
   * The whole worst case, when it is known before the first call (an embedding's texts): reserved
   * once before `run`, a refusal thrown (402 `AI.BUDGET_EXCEEDED`) before any call. A language
   * model's calls reserve each its own worst case (the meter, app/metering/meter.ts).
   */
  worstCase?: () => { inputTokens: number; outputTokens: number };
  /** Written in the usage rows' statement, from what `run` answered (a chat turn's answer); undefined when `run` threw. */
  alongside?: (result: T | undefined) => Promise<FragmentSqlToken | undefined> | FragmentSqlToken | undefined;
  /** A row's time is never before this (a turn's start). */
  notBefore?: Date;
  /**
   * When writing the rows fails after `run` answered: `throw` (the default) throws
   * `UsageNotRecorded`; `log` logs it and answers `run`'s answer (a title, a guardrail verdict).
   */
  unrecorded?: 'throw' | 'log';
};

/** The usage rows of a call that answered could not be written (PostgreSQL away). */
export class UsageNotRecorded extends Error {
  override name = 'UsageNotRecorded';
}

type Deps = Pick<AppDeps, 'db' | 'redis' | 'clock' | 'config' | 'logger'>;

/**
 * Runs `run` with the calls of `model` and meters them: one usage row per model call (tokens as
 * the provider reported them, `options.account`'s action type), written once `run` ends whether it
 * answered or threw, with the calls' budget reservations released in the same statement; then
 * the organization's budget check, and the model's connections closed. Answers `run`'s answer or
 * throws its error. Example (a judge's call):
 *
 *     const model = modelFor(deps, organizationId, modelId, signal, storedKey);
 *     const { text } = await callModel(deps, model, { account }, (ai) => ai.generateText({ prompt }));
 */
export function callModel<T>(deps: Deps, model: ChatModel, options: CallOptions<T>, run: (ai: LanguageCalls) => Promise<T>): Promise<T>;
export function callModel<T>(
  deps: Deps,
  model: EmbeddingModel,
  options: CallOptions<T>,
  run: (ai: EmbeddingCalls) => Promise<T>,
): Promise<T>;
export async function callModel<T>(
  deps: Deps,
  model: ChatModel | EmbeddingModel,
  options: CallOptions<T>,
  run: (ai: LanguageCalls & EmbeddingCalls) => Promise<T>,
): Promise<T> {
  let answered = false;
  let result: T | undefined;
  try {
    if (options.worstCase) {
      const id = await reserveCall(deps, {
        organizationId: options.account.organizationId,
        modelId: model.modelId,
        worstCase: options.worstCase,
      });
      if (id !== null) model.reservations.push(id);
    }
    result = await run(handleOf(model));
    answered = true;
    return result;
  } finally {
    try {
      const alongside = await options.alongside?.(result);
      await recordModelCalls(deps, { ...options.account, modelId: model.modelId, source: model.source }, model.calls, {
        reservations: model.reservations,
        ...(alongside ? { alongside } : {}),
        ...(options.notBefore ? { notBefore: options.notBefore } : {}),
      });
    } catch (error) {
      const err = error instanceof Error ? error.message : String(error);
      deps.logger.error({ actionType: options.account.actionType, err }, 'model call usage not recorded');
      // A failed `run`'s own error is the one thrown.
      // eslint-disable-next-line no-unsafe-finally
      if (answered && options.unrecorded !== 'log') throw new UsageNotRecorded(err);
    } finally {
      await model.close();
    }
  }
}

function handleOf(model: ChatModel | EmbeddingModel): LanguageCalls & EmbeddingCalls {
  const language = () => {
    if (model.kind !== 'language') throw new TypeError('not a language model');
    return model.model;
  };
  return {
    generateText: (params) => generateText({ ...params, model: language(), maxRetries: 0 }),
    streamText: (params) => streamText({ ...params, model: language(), maxRetries: 0 }),
    embedMany: (params) => {
      if (model.kind !== 'embedding') throw new TypeError('not an embedding model');
      return embedMany({ ...params, model: model.model, maxRetries: 0 });
    },
  };
}
