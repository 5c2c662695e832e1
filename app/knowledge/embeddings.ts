import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';
import { uuidv7 } from 'uuidv7';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import type { AppDeps } from '../core/deps.ts';
import { providerFetch } from '../net/guarded-fetch.ts';

/** Most bytes one embedding response may have (a hostile provider cannot stream forever). */
const MAX_EMBEDDING_RESPONSE_BYTES = 64 * 1024 * 1024;

export type EmbeddingScope = { organizationId: string; agentId: string; userId: string };

/** Whether chunks and questions are embedded: `AI_EMBEDDING_MODEL` and the platform key are set. */
export const embeddingsEnabled = (deps: AppDeps) => Boolean(deps.config.tools.embeddingModel && deps.config.ai.gatewayApiKey);

const unit = (vector: readonly number[]): number[] => {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
};

/**
 * Embeds `texts` with `AI_EMBEDDING_MODEL` at `AI_GATEWAY_URL` (the platform key; the AI SDK's
 * `embedMany`, which batches as the model allows, within the provider timeout and a response cap) and records the
 * tokens as one usage event of the scope, priced like chat. Answers unit vectors in the order of
 * `texts`, or null when embeddings are not configured.
 */
export async function embedTexts(
  deps: AppDeps,
  scope: EmbeddingScope,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<number[][] | null> {
  const modelId = deps.config.tools.embeddingModel;
  const apiKey = deps.config.ai.gatewayApiKey;
  if (!modelId || !apiKey || texts.length === 0) return null;
  const outbound = providerFetch(fetch, {
    idleTimeoutMs: deps.config.ai.providerTimeoutMs,
    maxResponseBytes: MAX_EMBEDDING_RESPONSE_BYTES,
  });
  const model = createOpenAICompatible({
    name: 'gateway',
    baseURL: deps.config.ai.gatewayUrl,
    apiKey,
    fetch: outbound.fetch,
  }).embeddingModel(modelId);
  const started = Date.now();
  const result = await embedMany({
    model,
    values: [...texts],
    maxRetries: 0,
    maxParallelCalls: 2,
    ...(signal ? { abortSignal: signal } : {}),
  }).catch((error: unknown) => {
    const failure = outbound.failures[0];
    throw new Error(`the embedding provider failed: ${failure ? failure : error instanceof Error ? error.message : String(error)}`);
  });
  await insertUsageEvents(deps.db, [
    {
      id: uuidv7(),
      organizationId: scope.organizationId,
      agentId: scope.agentId,
      userId: scope.userId,
      modelId,
      actionType: 'user_interaction',
      source: 'system',
      inputTokens: result.usage.tokens ?? 0,
      cacheReadTokens: 0,
      outputTokens: 0,
      costUsd: null,
      latencyMs: Date.now() - started,
      createdAt: deps.clock(),
    },
  ]);
  return result.embeddings.map(unit);
}
