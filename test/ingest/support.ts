import { sql, type DatabasePool } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import type { TestApp } from '../helpers/app.ts';

/** Creates an API key through the API as `ownerToken` and returns the answer (with the key). */
export async function createApiKey(t: TestApp, ownerToken: string, name = 'worker'): Promise<{ id: string; key: string; prefix: string }> {
  const { body } = await t
    .http()
    .post('/api/api-keys')
    .set('authorization', `Bearer ${ownerToken}`)
    .send({ name, scopes: ['usage:write'] })
    .expect(201);
  return body as { id: string; key: string; prefix: string };
}

/** A valid event of the events API; `overrides` replace fields. */
export const usageEvent = (overrides: Record<string, unknown> = {}) => ({
  id: uuidv7(),
  modelId: 'ingest/model',
  actionType: 'user_interaction',
  source: 'system',
  inputTokens: 1000,
  outputTokens: 500,
  cacheReadTokens: 0,
  costUsd: 0.01,
  createdAt: '2026-05-01T10:00:00.000Z',
  ...overrides,
});

/** Raw usage rows of an organization, oldest first. */
export function storedUsage(db: DatabasePool, organizationId: string) {
  return db.any(sql.type(
    z.object({
      agentId: z.string().nullable(),
      modelId: z.string(),
      actionType: z.string(),
      source: z.string(),
      inputTokens: z.coerce.number(),
      outputTokens: z.coerce.number(),
      cacheReadTokens: z.coerce.number(),
      costUsd: z.coerce.number(),
      latencyMs: z.number().nullable(),
      createdAt: z.string(),
    }),
  )`
    SELECT agent_id AS "agentId", model_id AS "modelId", action_type AS "actionType", source,
           input_tokens AS "inputTokens", output_tokens AS "outputTokens", cache_read_tokens AS "cacheReadTokens",
           cost_usd AS "costUsd", latency_ms AS "latencyMs", created_at AS "createdAt"
    FROM usage_events WHERE organization_id = ${organizationId} ORDER BY created_at, id`);
}

/** An agent of the organization, written directly. */
export async function insertAgentOf(db: DatabasePool, organizationId: string): Promise<string> {
  const id = uuidv7();
  await db.query(
    sql.unsafe`INSERT INTO agents (id, organization_id, name, description) VALUES (${id}, ${organizationId}, 'ingest agent', '')`,
  );
  return id;
}
