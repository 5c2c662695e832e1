import { createHash } from 'node:crypto';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapLanguageModel } from 'ai';
import { findProviderKey, type ProviderKeyRow } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson } from '../crypto/credentials.ts';
import { guardedSession, providerFetch, type ProviderFailure } from '../net/guarded-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { answerCap } from './answer-cap.ts';
import { DEMO_MODEL_ID, demoModel } from './demo-model.ts';
import { providerNotConfigured } from './errors.ts';
import { usageMeter, type MeteredCall } from './usage-meter.ts';
import type { UsageSource } from '../../sql/usage-window.ts';

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
  failures: ProviderFailure[];
  /** Ends the turn's outbound connections (BYOK). */
  close(): Promise<void>;
};

/**
 * Picks the provider of a turn: the organization's own key (BYOK, its `baseUrl` under the
 * outbound URL policy), else the platform's `AI_GATEWAY_*` (operator configuration, trusted),
 * else the demo model outside production; in production 503 `AI.PROVIDER_NOT_CONFIGURED`.
 * Throws before any stream starts.
 */
export async function chatModelFor(deps: AppDeps, organizationId: string, requestedModelId: string, turn: AbortSignal): Promise<ChatModel> {
  return chatModelWith(deps, organizationId, requestedModelId, turn, await findProviderKey(deps.db, organizationId));
}

/** `chatModelFor` given the organization's stored key (`findProviderKey`), read by the caller. */
export function chatModelWith(
  deps: AppDeps,
  organizationId: string,
  requestedModelId: string,
  turn: AbortSignal,
  stored: ProviderKeyRow | null,
): ChatModel {
  const meter = usageMeter(deps.clock);
  const limits = { idleTimeoutMs: deps.config.ai.providerTimeoutMs, maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES };
  // The meter outside the cap: a call the cap ends is still metered (with the cap's estimate).
  const metered = (model: LanguageModelV3) => wrapLanguageModel({ model, middleware: [meter.middleware, answerCap()] }) as LanguageModelV3;
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
    return { ...openAiCompatible(endpoint, outbound, 'byok'), close: async () => session?.close() };
  }
  const apiKey = deps.config.ai.gatewayApiKey;
  if (apiKey === undefined) {
    if (deps.config.nodeEnv === 'production') throw providerNotConfigured();
    return {
      model: metered(demoModel()),
      modelId: DEMO_MODEL_ID,
      source: 'system',
      calls: meter.calls,
      failures: [],
      close: async () => {},
    };
  }
  const endpoint = { name: 'gateway', baseURL: deps.config.ai.gatewayUrl, apiKey };
  return { ...openAiCompatible(endpoint, providerFetch(fetch, limits), 'system'), close: async () => {} };

  /** A Chat Completions model at `endpoint`, over the turn's bounded fetch, metered. */
  function openAiCompatible(
    endpoint: { name: string; baseURL: string; apiKey: string },
    outbound: ReturnType<typeof providerFetch>,
    source: ChatModel['source'],
  ): Omit<ChatModel, 'close'> {
    return {
      model: metered(chatModelOver(endpoint, requestedModelId, outbound.fetch)),
      modelId: requestedModelId,
      source,
      calls: meter.calls,
      failures: outbound.failures,
    };
  }
}

/** Most chat model instances kept for reuse (one per endpoint, key and model id). */
const MAX_CACHED_MODELS = 64;
const cachedModels = new Map<string, LanguageModelV3>();

/**
 * A Chat Completions model at `endpoint` whose requests go through `fetch` (the turn's bounded,
 * failure-recording fetch). Building the SDK's model compiles its zod chunk schema, and the first
 * parse with a new schema compiles it again: together most of the service's added time to the
 * first chunk. So one instance per endpoint, key (by hash) and model id is kept, and each turn
 * gets an object inheriting from it with its own `config` (the SDK reads `this.config.fetch` on
 * every call). The cache only saves work: the key is still looked up for every turn.
 */
function chatModelOver(endpoint: { name: string; baseURL: string; apiKey: string }, modelId: string, fetch: typeof globalThis.fetch) {
  const key = [endpoint.name, endpoint.baseURL, createHash('sha256').update(endpoint.apiKey).digest('base64'), modelId].join('\n');
  let shared = cachedModels.get(key);
  if (!shared) {
    if (cachedModels.size >= MAX_CACHED_MODELS) cachedModels.delete(cachedModels.keys().next().value!);
    shared = createOpenAICompatible({ ...endpoint, includeUsage: true }).chatModel(modelId);
    cachedModels.set(key, shared);
  }
  const config = (shared as unknown as { config: Record<string, unknown> }).config;
  return Object.assign(Object.create(shared) as LanguageModelV3, { config: { ...config, fetch } });
}
