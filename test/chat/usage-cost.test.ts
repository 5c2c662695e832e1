import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { createApiKey, usageEvent } from '../ingest/support.ts';
import { agentId, bearer, chatConfig, provider, sendChat, serve, textOf, userMessage, type T } from './support.ts';

const test = withTestApp(anyTest);

/** The largest cost a usage row stores (numeric(20, 10)). */
const LARGEST_COST = '9999999999.0000000000';

const costsOf = (t: T, modelId: string) =>
  t.context.t.db.pool.manyFirst(sql.type(z.strictObject({ cost: z.string() }))`
    SELECT cost_usd::text AS cost FROM usage_events
    WHERE organization_id = ${ORGANIZATIONS.demoAgency.id} AND model_id = ${modelId} AND action_type <> 'title_generation'
    ORDER BY agent_id NULLS LAST, created_at`);

/**
 * One chat turn on `modelId` whose provider reports these tokens, and one event of the events
 * API with the same tokens and no cost: the stored costs, the chat's first.
 */
async function chatAndEvent(t: T, modelId: string, tokens: { prompt: number; cached: number; completion: number }) {
  const peer = await provider(t, () => ({ kind: 'text', text: 'Priced.', usage: tokens }));
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, defaultModel: modelId }));
  const auth = await bearer(t);
  const { message, chunks } = await sendChat(base, auth, `chat-${modelId.replace(/\W/g, '-')}`, [userMessage('Price this')]);
  t.is(textOf(message), 'Priced.');
  t.deepEqual(chunks.at(-1), { type: 'finish', finishReason: 'stop' });
  const { key } = await createApiKey(t.context.t, await t.context.t.login('owner@demo.test'), `cost-${modelId}`);
  const event = usageEvent({
    modelId,
    inputTokens: tokens.prompt - tokens.cached,
    cacheReadTokens: tokens.cached,
    outputTokens: tokens.completion,
    costUsd: undefined,
  });
  const posted = await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', `Bearer ${key}`)
    .send({ events: [event] });
  t.is(posted.status, 200);
  t.deepEqual(posted.body, { accepted: 1, duplicates: 0 });
  return costsOf(t, modelId);
}

test.serial('a chat turn and an ingested event with the same tokens on the same model cost the same', async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/cost-model', 2, 10, 0.5)`);
  // (1000 * 2 + 30 * 10 + 200 * 0.5) / 1e6
  t.deepEqual(await chatAndEvent(t, 'test/cost-model', { prompt: 1200, cached: 200, completion: 30 }), ['0.0024000000', '0.0024000000']);
});

test.serial('a chat turn priced above the largest storable cost is saved at that cost, as an ingested event is', async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/costly-model', 9999999999, 9999999999, 9999999999)`);
  const costs = await chatAndEvent(t, 'test/costly-model', { prompt: 2_000_000, cached: 0, completion: 10 });
  t.deepEqual(costs, [LARGEST_COST, LARGEST_COST]);
  const stored = await t.context.t
    .http()
    .get(`/api/ai/agents/${agentId}/conversations/chat-test-costly-model`)
    .set('authorization', await bearer(t));
  t.is(stored.status, 200);
  t.deepEqual(
    stored.body.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant'],
  );
});
