import { sql, type CommonQueryMethods } from 'slonik';
import type { UsageSource } from './usage-window.ts';

/** One model call of a chat turn, as the chat stream measured it. */
export type ChatModelCall = {
  id: string;
  organizationId: string;
  agentId: string;
  userId: string;
  /** The model id as requested (the agent's `modelId` or the default). */
  modelId: string;
  source: UsageSource;
  /** Prompt tokens minus the cached ones. */
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  /** From sending the request to the provider to its last chunk. */
  latencyMs: number;
  createdAt: Date;
};

/**
 * Writes the usage events of a chat turn, one per model call, `actionType: user_interaction`,
 * with the cost from the model's price (USD per million tokens; 0 when the model has none). The
 * chat stream calls this once per turn, in the transaction that stores the assistant message.
 */
export async function insertChatUsage(db: CommonQueryMethods, calls: readonly ChatModelCall[]): Promise<void> {
  if (calls.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO usage_events (id, organization_id, agent_id, user_id, model_id, action_type, source,
                              input_tokens, output_tokens, cache_read_tokens, cost_usd, latency_ms, created_at)
    SELECT c.id, c.organization_id, c.agent_id, c.user_id, c.model_id, 'user_interaction', c.source,
           c.input_tokens, c.output_tokens, c.cache_read_tokens,
           coalesce((c.input_tokens * p.input_usd_per_mtok + c.output_tokens * p.output_usd_per_mtok
                     + c.cache_read_tokens * p.cache_read_usd_per_mtok) / 1000000, 0),
           c.latency_ms, c.created_at
    FROM ${sql.unnest(
      calls.map((call) => [
        call.id,
        call.organizationId,
        call.agentId,
        call.userId,
        call.modelId,
        call.source,
        call.inputTokens,
        call.outputTokens,
        call.cacheReadTokens,
        call.latencyMs,
        call.createdAt.toISOString(),
      ]),
      ['uuid', 'uuid', 'uuid', 'uuid', 'text', 'usage_source', 'int8', 'int8', 'int8', 'int4', 'timestamptz'],
    )} AS c (id, organization_id, agent_id, user_id, model_id, source, input_tokens, output_tokens,
             cache_read_tokens, latency_ms, created_at)
    LEFT JOIN model_pricing p ON p.model_id = c.model_id`);
}
