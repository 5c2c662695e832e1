import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { LanguageModelV3, LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapLanguageModel } from 'ai';
import type { ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson } from '../crypto/credentials.ts';
import { guardedSession, providerFetch, type ProviderFailure } from '../net/guarded-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { modelMeter, type MeteredCall } from '../metering/meter.ts';
import { estimateTokens } from '../metering/tokens.ts';
import { DEMO_MODEL_ID, demoModel } from './demo-model.ts';
import { providerNotConfigured } from './errors.ts';
import type { UsageSource } from '../../sql/usage-window.ts';

/*
 * The model of a chat turn: its provider (the organization's key, the platform's gateway or the
 * demo model) over the bounded provider fetch, wrapped in two language-model middlewares, the
 * meter (`modelMeter`: budget reservations and usage) outside the answer's byte cap (`answerCap`).
 */

/** Most bytes one provider response may stream (a hostile provider cannot stream forever). */
export const MAX_PROVIDER_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The sealing context of an organization's provider key: a ciphertext copied to another organization does not open. */
export const providerKeyContext = (organizationId: string) => `organization:${organizationId}/provider-key`;

/** The model one chat turn talks to, with what it measured and why it failed. */
export type ChatModel = {
  model: LanguageModelV3;
  /** The model id as requested (usage events carry it). */
  modelId: string;
  source: UsageSource;
  calls: MeteredCall[];
  /** Budget reservations of the calls (an enforced budget), released with their usage rows. */
  reservations: string[];
  failures: ProviderFailure[];
  /** Ends the turn's outbound connections (BYOK). */
  close(): Promise<void>;
};

/**
 * The model of a turn (or of a title or guardrail call) at `requestedModelId`: the organization's
 * own key (`stored`, read by the caller with `findProviderKey`; BYOK, its `baseUrl` under the
 * outbound URL policy), else the platform's `AI_GATEWAY_*` (operator configuration, trusted), else
 * the demo model outside production; in production 503 `AI.PROVIDER_NOT_CONFIGURED`. Throws before
 * any stream starts.
 */
export function chatModelWith(
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
  ) => {
    const meter = modelMeter(deps, { organizationId, modelId });
    // The meter outside the cap: a call the cap ends is still metered (with the cap's estimate).
    const wrapped = wrapLanguageModel({ model, middleware: [meter.middleware, answerCap()] });
    return { model: wrapped, modelId, source, calls: meter.calls, reservations: meter.reservations, failures, close };
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
