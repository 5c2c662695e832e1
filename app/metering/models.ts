import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { EmbeddingModelV3, LanguageModelV3, LanguageModelV3Middleware } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapEmbeddingModel, wrapLanguageModel } from 'ai';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { UsageSource } from '../../sql/usage-window.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson } from '../crypto/credentials.ts';
import { guardedSession, providerFetch, type ProviderFailure } from '../net/guarded-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { answerCap } from './answer-cap.ts';
import { DEMO_MODEL_ID, demoModel } from './demo-model.ts';
import { providerNotConfigured } from './errors.ts';
import { embeddingMeter, modelMeter, type MeteredCall } from './meter.ts';

/*
 * The models of the service's calls, made only here (`modelFor`, `embeddingModelFor`) and called
 * only through `callModel` (app/metering/call.ts): a provider (the organization's key, the
 * platform's gateway or the demo model) over the bounded provider fetch, wrapped in the meter
 * (`modelMeter`: budget reservations and usage) and, for a language model, outside it the
 * answer's byte cap (`answerCap`).
 */

/** Most bytes one provider response may stream (a hostile provider cannot stream forever). */
export const MAX_PROVIDER_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The sealing context of an organization's provider key: a ciphertext copied to another organization does not open. */
export const providerKeyContext = (organizationId: string) => `organization:${organizationId}/provider-key`;

/** A model of the service with what its calls measured and why they failed; called through `callModel`. */
type MeteredModel<M> = {
  model: M;
  /** The model id as requested (usage events carry it). */
  modelId: string;
  source: UsageSource;
  calls: MeteredCall[];
  /** Budget reservations of the calls (an enforced budget), released with their usage rows. */
  reservations: string[];
  failures: ProviderFailure[];
  /** Ends the calls' outbound connections (BYOK). */
  close(): Promise<void>;
};

/** A language model (chat steps, titles, guardrail checks). */
export type ChatModel = MeteredModel<LanguageModelV3> & { kind: 'language' };
/** An embedding model (documents, questions). */
export type EmbeddingModel = MeteredModel<EmbeddingModelV3> & { kind: 'embedding' };

/**
 * The model of a turn (or of a title or guardrail call) at `requestedModelId`: the organization's
 * own key (`stored`, read by the caller with `findProviderKey`; BYOK, its `baseUrl` under the
 * outbound URL policy), else the platform's `AI_GATEWAY_*` (operator configuration, trusted), else
 * the demo model outside production; in production 503 `AI.PROVIDER_NOT_CONFIGURED`. Throws before
 * any stream starts.
 */
export function modelFor(
  deps: AppDeps,
  organizationId: string,
  requestedModelId: string,
  turn: AbortSignal,
  stored: ProviderKeyRow | null,
): ChatModel {
  const limits = { idleTimeoutMs: deps.config.ai.providerTimeoutMs, maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES };
  const metered = (
    model: LanguageModelV3,
    modelId: string,
    source: UsageSource,
    failures: ProviderFailure[],
    close: () => Promise<void>,
  ): ChatModel => {
    const meter = modelMeter(deps, { organizationId, modelId });
    // The meter outside the cap: a call the cap ends is still metered (with the cap's estimate).
    const wrapped = wrapLanguageModel({ model, middleware: [meter.middleware, answerCap()] });
    return { kind: 'language', model: wrapped, modelId, source, calls: meter.calls, reservations: meter.reservations, failures, close };
  };
  if (stored) {
    const apiKey = openJson<string>(
      deps.config.credentialsKeyring,
      { keyId: stored.keyId, ciphertext: stored.ciphertext },
      providerKeyContext(organizationId),
    );
    const session = stored.baseUrl
      ? guardedSession({
          policy: urlPolicyFor(deps.config),
          maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES,
          deadline: turn,
          onFailure: () => {},
        })
      : undefined;
    const endpoint = { name: 'byok', baseURL: stored.baseUrl ?? deps.config.ai.gatewayUrl, apiKey };
    const outbound = providerFetch(session ? session.fetch : fetch, limits);
    const model = chatModelOver(endpoint, requestedModelId, outbound.fetch);
    return metered(model, requestedModelId, 'byok', outbound.failures, async () => session?.close());
  }
  const apiKey = deps.config.ai.gatewayApiKey;
  if (apiKey === undefined) {
    if (deps.config.nodeEnv === 'production') throw providerNotConfigured();
    return metered(demoModel(), DEMO_MODEL_ID, 'system', [], async () => {});
  }
  const outbound = providerFetch(fetch, limits);
  const model = chatModelOver({ name: 'gateway', baseURL: deps.config.ai.gatewayUrl, apiKey }, requestedModelId, outbound.fetch);
  return metered(model, requestedModelId, 'system', outbound.failures, async () => {});
}

/** Most chat model instances kept for reuse (one per endpoint, key and model id). */
const MAX_CACHED_MODELS = 64;
const cachedModels = new Map<string, LanguageModelV3>();

/** The fetch of the model call running in this async context (set by `throughFetch`). */
const callFetch = new AsyncLocalStorage<typeof globalThis.fetch>();

/**
 * The `fetch` every cached model is created with: the calling turn's fetch, so each provider
 * request of a turn goes through that turn's outbound policy, deadline and bounds. A request made
 * outside a call of `throughFetch` is refused, never sent with the global fetch.
 */
const fetchOfCall: typeof globalThis.fetch = (input, init) => {
  const current = callFetch.getStore();
  if (!current) return Promise.reject(new Error('a provider request outside a chat model call'));
  return current(input, init);
};

/** A language-model middleware that runs each call of the model with `fetch` as its provider fetch. */
function throughFetch(fetch: typeof globalThis.fetch): LanguageModelV3Middleware {
  return {
    specificationVersion: 'v3',
    wrapGenerate: ({ doGenerate }) => callFetch.run(fetch, doGenerate),
    wrapStream: ({ doStream }) => callFetch.run(fetch, doStream),
  };
}

/**
 * A Chat Completions model at `endpoint` whose requests go through `fetch` (the turn's bounded,
 * failure-recording fetch). Building the SDK's model compiles its zod chunk schema, and the first
 * parse with a new schema compiles it again: together most of the service's added time to the
 * first chunk. So one instance per endpoint, key (by hash) and model id is kept, created with
 * `fetchOfCall`, and each turn wraps it in `throughFetch` with its own fetch. The cache only
 * saves work: the key is still looked up for every turn.
 */
function chatModelOver(endpoint: { name: string; baseURL: string; apiKey: string }, modelId: string, fetch: typeof globalThis.fetch) {
  const key = [endpoint.name, endpoint.baseURL, createHash('sha256').update(endpoint.apiKey).digest('base64'), modelId].join('\n');
  let shared = cachedModels.get(key);
  if (!shared) {
    if (cachedModels.size >= MAX_CACHED_MODELS) cachedModels.delete(cachedModels.keys().next().value!);
    shared = createOpenAICompatible({ ...endpoint, includeUsage: true, fetch: fetchOfCall }).chatModel(modelId);
    cachedModels.set(key, shared);
  }
  return wrapLanguageModel({ model: shared, middleware: throughFetch(fetch) });
}

/** Most bytes one embedding response may have (a hostile provider cannot stream forever). */
const MAX_EMBEDDING_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The embedding model `modelId` at `AI_GATEWAY_URL` on the platform key (embeddings are never
 * BYOK), within the provider timeout and a response cap, its calls measured (`embeddingMeter`).
 * The caller checks that embeddings are configured (`embeddingsEnabled`).
 */
export function embeddingModelFor(deps: AppDeps, modelId: string): EmbeddingModel {
  const apiKey = deps.config.ai.gatewayApiKey;
  if (apiKey === undefined) throw providerNotConfigured();
  const outbound = providerFetch(fetch, {
    idleTimeoutMs: deps.config.ai.providerTimeoutMs,
    maxResponseBytes: MAX_EMBEDDING_RESPONSE_BYTES,
  });
  const meter = embeddingMeter(deps);
  const provider = createOpenAICompatible({ name: 'gateway', baseURL: deps.config.ai.gatewayUrl, apiKey, fetch: outbound.fetch });
  return {
    kind: 'embedding',
    model: wrapEmbeddingModel({ model: provider.embeddingModel(modelId), middleware: meter.middleware }),
    modelId,
    source: 'system',
    calls: meter.calls,
    reservations: [],
    failures: outbound.failures,
    close: async () => {},
  };
}
