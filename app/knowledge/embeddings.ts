import { checkBudgetBeforeTurn } from '../analytics/budget/checker.ts';
import type { AppDeps } from '../core/deps.ts';
import { CodedError } from '../core/errors.ts';
import { callModel } from '../metering/call.ts';
import { modelNotAvailable } from '../metering/errors.ts';
import { embeddingModelFor } from '../metering/models.ts';
import { isPriced } from '../metering/prices.ts';

/** Whose embedding: the organization, the agent and the staff user or end user (a document's uploader, a turn's owner). */
/** Whose embedding it is; `metadata` goes on its usage row (an evaluation's `{ evaluation: true }`). */
export type EmbeddingScope = {
  organizationId: string;
  agentId: string;
  userId: string | null;
  endUserId?: string | null;
  metadata?: Readonly<Record<string, unknown>> | undefined;
};

/** What the texts are embedded for: a document being added, or a `search_knowledge_base` question. */
export type EmbeddingAction = 'document_indexing' | 'rag_query_embedding';

/** Whether chunks and questions are embedded: `AI_EMBEDDING_MODEL` and the platform key are set. */
export const embeddingsEnabled = (deps: AppDeps) => Boolean(deps.config.tools.embeddingModel && deps.config.ai.gatewayApiKey);

const unit = (vector: readonly number[]): number[] => {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
};

/**
 * Embeds `texts` with `AI_EMBEDDING_MODEL` at `AI_GATEWAY_URL` (the platform key; the AI SDK's
 * `embedMany`, which batches as the model allows, within the provider timeout and a response cap).
 * Answers unit vectors in the order of `texts`, or null when they are not embedded: embeddings
 * not configured, or a question the platform will not pay for (an unpriced model, a budget with no
 * room: the search ranks by full text alone).
 *
 * The platform pays only for a priced model: a document with an unpriced one is 400
 * `AI.MODEL_NOT_AVAILABLE`. A document is refused with 402 `AI.BUDGET_EXCEEDED` when an enforced
 * budget is used up, or has no room for the worst case of its embedding (every UTF-8 byte a token),
 * which is reserved before the first call. Every call is recorded as one usage row of `action`.
 */
export async function embedTexts(
  deps: AppDeps,
  scope: EmbeddingScope,
  texts: readonly string[],
  options: { action: EmbeddingAction; signal?: AbortSignal },
): Promise<number[][] | null> {
  const modelId = deps.config.tools.embeddingModel;
  const apiKey = deps.config.ai.gatewayApiKey;
  if (!modelId || !apiKey || texts.length === 0) return null;
  const indexing = options.action === 'document_indexing';
  const [priced] = await Promise.all([isPriced(deps, modelId), indexing ? checkBudgetBeforeTurn(deps, scope.organizationId) : null]);
  if (!priced) {
    if (indexing) throw modelNotAvailable(modelId);
    return null;
  }
  const model = embeddingModelFor(deps, modelId);
  const account = {
    organizationId: scope.organizationId,
    agentId: scope.agentId,
    userId: scope.userId,
    endUserId: scope.endUserId ?? null,
    actionType: options.action,
    ...(scope.metadata ? { metadata: scope.metadata } : {}),
  };
  // The worst case (every UTF-8 byte a token) is reserved before the first call; the calls made are paid for, whether or not the whole batch succeeded.
  const worstCase = () => ({ inputTokens: texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0), outputTokens: 0 });
  try {
    return await callModel(deps, model, { account, worstCase }, async (ai) => {
      const result = await ai
        .embedMany({ values: [...texts], maxParallelCalls: 2, ...(options.signal ? { abortSignal: options.signal } : {}) })
        .catch((error: unknown) => {
          const failure = model.failures[0];
          throw new Error(`the embedding provider failed: ${failure ? failure : error instanceof Error ? error.message : String(error)}`);
        });
      return result.embeddings.map(unit);
    });
  } catch (error) {
    // A question the budget has no room for is searched by full text alone.
    if (!indexing && error instanceof CodedError) return null;
    throw error;
  }
}
