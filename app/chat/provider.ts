import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { wrapLanguageModel } from 'ai';
import { findProviderKey } from '../../sql/provider-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson } from '../crypto/credentials.ts';
import { guardedSession } from '../net/guarded-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { DEMO_MODEL_ID, demoModel } from './demo-model.ts';
import { providerNotConfigured } from './errors.ts';
import { providerFetch, type ProviderFailure } from './provider-fetch.ts';
import { usageMeter, type MeteredCall } from './usage-meter.ts';

/** Most bytes one provider response may stream (a hostile provider cannot stream forever). */
export const MAX_PROVIDER_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The sealing context of an organization's provider key: a ciphertext copied to another organization does not open. */
export const providerKeyContext = (organizationId: string) => `organization:${organizationId}/provider-key`;

/** The model one chat turn talks to, with what it measured and why it failed. */
export type ChatModel = {
  model: LanguageModelV3;
  /** The model id as requested (usage events carry it). */
  modelId: string;
  source: 'system' | 'byok';
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
  const meter = usageMeter(deps.clock);
  const limits = { idleTimeoutMs: deps.config.ai.providerTimeoutMs, maxResponseBytes: MAX_PROVIDER_RESPONSE_BYTES };
  const metered = (model: LanguageModelV3) => wrapLanguageModel({ model, middleware: meter.middleware }) as LanguageModelV3;
  const stored = await findProviderKey(deps.db, organizationId);
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
    const provider = createOpenAICompatible({ ...endpoint, includeUsage: true, fetch: outbound.fetch });
    return {
      model: metered(provider.chatModel(requestedModelId)),
      modelId: requestedModelId,
      source,
      calls: meter.calls,
      failures: outbound.failures,
    };
  }
}
