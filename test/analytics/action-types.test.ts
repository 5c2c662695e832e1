import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { sql } from 'slonik';
import { z } from 'zod';
import { MODERATION_PROMPT } from '../../app/chat/guardrails.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { ACTION_TYPES } from '../../sql/usage-window.ts';
import { withTestApp } from '../helpers/app.ts';
import { startOpenAiPeer, DEFAULT_TITLE, type ChatRequest } from '../helpers/openai-peer.ts';
import { startEmbeddingPeer } from '../knowledge/embedding-peer.ts';
import { bearer, chatConfig, sendChat, serve, textOf, userMessage, type T } from '../chat/support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;

/** One priced model per action, so each action's rows are one model of the answer. USD per million tokens. */
const MODELS = {
  chat: { id: 'test/chat-model', input: 3, output: 15 },
  guard: { id: 'test/guard-model', input: 0.5, output: 2 },
  title: { id: 'test/title-model', input: 0.2, output: 0.8 },
  embed: { id: 'test/concepts', input: 0.1, output: 0 },
};

/** The rows the service wrote for the agent, per action and model. */
const StoredRow = z.strictObject({ action: z.string(), model: z.string(), tokens: z.number(), cost: z.number(), calls: z.number() });
const storedRows = (t: T) =>
  t.context.t.db.pool.any(sql.type(StoredRow)`
    SELECT action_type::text AS action, model_id AS model, sum(input_tokens + output_tokens + cache_read_tokens)::int AS tokens,
           sum(cost_usd)::float8 AS cost, count(*)::int AS calls
    FROM usage_events WHERE agent_id = ${agent} GROUP BY 1, 2 ORDER BY 1, 2`);

/** One loopback provider: embeddings go to the embedding peer, everything else to the chat peer. */
async function gateway(t: T, chatUrl: string, embeddingUrl: string): Promise<string> {
  const target = (path: string) => new URL(path.endsWith('/embeddings') ? embeddingUrl : chatUrl);
  const server = createServer((incoming, outgoing) => {
    const upstream = target(incoming.url ?? '/');
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const words = (texts: string[]) => texts.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
/** USD to the usage table's 10 decimals. */
const costOf = (model: { input: number; output: number }, input: number, output: number) =>
  Number(((input * model.input + output * model.output) / 1e6).toFixed(10));

test.serial(
  'a document upload and a chat turn with a title, a moderation check and a search: model-efficiency by each action answers its rows',
  async (t) => {
    const pool = t.context.t.db.pool;
    for (const model of Object.values(MODELS))
      await pool.query(sql.unsafe`
        INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
        VALUES (${model.id}, ${model.input}, ${model.output}, 0)`);
    // Other Agency has no usage of its own: every row below is the service's.
    await pool.query(sql.unsafe`DELETE FROM usage_events WHERE organization_id = (SELECT organization_id FROM agents WHERE id = ${agent})`);

    const isModeration = (request: ChatRequest) => request.messages[0]?.content === MODERATION_PROMPT;
    const chat = await startOpenAiPeer((request) => {
      if (isModeration(request)) return { kind: 'text', text: 'safe', usage: { prompt: 80, completion: 1 } };
      const searched = request.messages.some((message) => message.role === 'tool');
      return searched
        ? { kind: 'text', text: 'Refunds take five to seven days.', usage: { prompt: 300, completion: 12 } }
        : {
            kind: 'tool-call',
            toolName: 'search_knowledge_base',
            input: { query: 'refund money back' },
            usage: { prompt: 200, completion: 9 },
          };
    });
    t.teardown(() => chat.close());
    const embedder = await startEmbeddingPeer();
    t.teardown(() => embedder.close());
    const config = chatConfig({ gatewayUrl: await gateway(t, chat.url, embedder.url), titleModel: MODELS.title.id });
    const base = await serve(t, { ...config, tools: { ...config.tools, embeddingModel: MODELS.embed.id } });
    const auth = await bearer(t, 'owner@other.test');
    const http = t.context.t.http;
    await http()
      .patch(`/api/ai/agents/${agent}`)
      .set('authorization', auth)
      .send({ modelId: MODELS.chat.id, guardrails: { moderationModel: MODELS.guard.id } })
      .expect(200);
    await http()
      .put(`/api/ai/agents/${agent}/tools`)
      .set('authorization', auth)
      .send({ tools: [{ toolName: 'search_knowledge_base', permissionStatus: 'always_allow', providerKey: 'knowledge' }] })
      .expect(200);
    const from = new Date(Date.now() - 3_600_000).toISOString();

    const upload = await fetch(`${base}/api/ai/agents/${agent}/documents`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'refunds.md',
        text: 'Refunds: the money is back on your card five to seven days after the parcel arrives.',
      }),
    });
    t.is(upload.status, 201);
    const { message } = await sendChat(base, auth, 'metered', [userMessage('When do I get my money back?', 'm1')], { agent });
    t.is(textOf(message), 'Refunds take five to seven days.');
    t.like(
      (message as UIMessage).parts.find((part) => part.type === 'tool-search_knowledge_base'),
      { state: 'output-available' },
    );
    // The title call runs beside the turn: its row is written after the title is stored.
    for (let tries = 0; tries < 500 && !(await storedRows(t)).some((row) => row.action === 'title_generation'); tries += 1) await delay(10); // polls PostgreSQL for the service's write, no clock stands in for it
    t.is(chat.titleRequests.length, 1);
    t.is(chat.titleRequests[0]!.body.model, MODELS.title.id);

    // What each action cost, from what the providers reported.
    const [indexed, asked] = [embedder.requests[0]!.input, embedder.requests[1]!.input];
    t.deepEqual(asked, ['refund money back']);
    const expected = {
      user_interaction: { model: MODELS.chat, calls: 2, input: 200 + 300, output: 9 + 12 },
      guardrail_check: { model: MODELS.guard, calls: 1, input: 80, output: 1 },
      title_generation: { model: MODELS.title, calls: 1, input: 40, output: 3 },
      rag_query_embedding: { model: MODELS.embed, calls: 1, input: words(asked), output: 0 },
      document_indexing: { model: MODELS.embed, calls: 1, input: words(indexed), output: 0 },
    };
    t.deepEqual(
      (await storedRows(t)).map((row) => ({ ...row, cost: Number(row.cost.toFixed(10)) })),
      Object.entries(expected)
        .map(([action, e]) => ({
          action,
          model: e.model.id,
          tokens: e.input + e.output,
          cost: costOf(e.model, e.input, e.output),
          calls: e.calls,
        }))
        .sort((a, b) => (a.action < b.action ? -1 : 1)),
    );
    const listed = await http().get(`/api/ai/agents/${agent}/conversations`).set('authorization', auth).expect(200);
    t.like(
      listed.body.conversations.find((conversation: { id: string }) => conversation.id === 'metered'),
      { title: DEFAULT_TITLE },
    );

    const to = new Date(Date.now() + 3_600_000).toISOString();
    for (const action of ACTION_TYPES) {
      const e = expected[action];
      const answer = await http()
        .get('/api/ai/org-usage/model-efficiency')
        .query({ from, to, action })
        .set('authorization', auth)
        .expect(200);
      t.is(answer.body.length, 1, action);
      t.like(answer.body[0], { modelId: e.model.id, executionsCount: e.calls, totalTokens: e.input + e.output }, action);
      t.is(Number(answer.body[0].totalCostUsd.toFixed(10)), costOf(e.model, e.input, e.output), action);
      t.is(typeof answer.body[0].p95LatencyMs, 'number', `${action}: the service times every call`);
    }
    // Grouped by action, the time series holds the same five.
    const series = await http()
      .get('/api/ai/org-usage/time-series')
      .query({ from, to, groupBy: 'action' })
      .set('authorization', auth)
      .expect(200);
    const totals = Object.fromEntries(ACTION_TYPES.map((action) => [action, 0]));
    for (const bucket of series.body.buckets as { series: Record<string, { totalTokens: number }> }[])
      for (const [action, value] of Object.entries(bucket.series)) totals[action]! += value.totalTokens;
    t.deepEqual(totals, Object.fromEntries(Object.entries(expected).map(([action, e]) => [action, e.input + e.output])));
  },
);
