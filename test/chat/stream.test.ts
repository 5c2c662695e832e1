import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { agentId, bearer, chatConfig, provider, sendChat, serve, textOf, userMessage } from './support.ts';

const test = withTestApp(anyTest);

const UsageRow = z.strictObject({
  modelId: z.string(),
  actionType: z.string(),
  source: z.string(),
  agentId: z.string(),
  userId: z.string().nullable(),
  inputTokens: z.string(),
  cacheReadTokens: z.string(),
  outputTokens: z.string(),
  costUsd: z.string(),
  latencyMs: z.number(),
});

test.serial('a turn streams the provider text as a UI message stream, stores both messages and records one usage event', async (t) => {
  // The title call fails here (the conversation keeps its first line as title; tests/chat/titles.test.ts has the rest).
  const peer = await provider(
    t,
    (request) =>
      request.stream === true
        ? { kind: 'text', text: 'Hello from the scripted provider', usage: { prompt: 120, completion: 7, cached: 20 } }
        : { kind: 'status', status: 500 },
    { titles: 'script' },
  );
  const base = await serve(t, chatConfig({ gatewayUrl: peer.url, defaultModel: 'test/priced-model' }));
  const auth = await bearer(t);
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/priced-model', 1, 10, 0.5) ON CONFLICT (model_id) DO NOTHING`);

  const response = await fetch(`${base}/api/ai/agents/${agentId}/chat`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-raw', messages: [userMessage('Say hello')], trigger: 'submit-message' }),
  });
  t.is(response.status, 200);
  t.is(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  t.regex(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const raw = await response.text();
  t.true(raw.trimEnd().endsWith('data: [DONE]'));

  const { message, chunks } = await sendChat(base, auth, 'chat-one', [userMessage('Say hello')]);
  t.is(textOf(message), 'Hello from the scripted provider');
  t.deepEqual(chunks.at(-1), { type: 'finish', finishReason: 'stop' });
  t.is(peer.requests.at(-1)!.body.model, 'test/priced-model');
  t.is(peer.requests.at(-1)!.headers.authorization, 'Bearer sk-platform-secret-key-0001');

  const usage = await t.context.t.db.pool.many(sql.type(UsageRow)`
    SELECT model_id AS "modelId", action_type AS "actionType", source, agent_id AS "agentId", user_id AS "userId",
           input_tokens::text AS "inputTokens", cache_read_tokens::text AS "cacheReadTokens", output_tokens::text AS "outputTokens",
           cost_usd::text AS "costUsd", latency_ms AS "latencyMs"
    FROM usage_events WHERE agent_id = ${agentId} AND model_id = 'test/priced-model' AND action_type = 'user_interaction'
    ORDER BY created_at`);
  t.is(usage.length, 2);
  t.like(usage[1], {
    modelId: 'test/priced-model',
    actionType: 'user_interaction',
    source: 'system',
    inputTokens: '100',
    cacheReadTokens: '20',
    outputTokens: '7',
    // (100 * 1 + 7 * 10 + 20 * 0.5) / 1e6
    costUsd: '0.0001800000',
  });
  t.true(usage[1]!.latencyMs >= 0);

  const stored = await t.context.t.http().get(`/api/ai/agents/${agentId}/conversations/chat-one`).set('authorization', auth).expect(200);
  t.is(stored.body.id, 'chat-one');
  t.deepEqual(
    stored.body.messages.map((m: { role: string }) => m.role),
    ['user', 'assistant'],
  );
  t.is(stored.body.messages[1].id, message!.id);
  const list = await t.context.t.http().get(`/api/ai/agents/${agentId}/conversations`).set('authorization', auth).expect(200);
  t.like(
    list.body.conversations.find((c: { id: string }) => c.id === 'chat-one'),
    { title: 'Say hello' },
  );
});
