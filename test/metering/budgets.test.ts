import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { bearer, chatConfig, chatPath, provider, sendChat, serve, userMessage, type T } from '../chat/support.ts';
import { usageEvent } from '../ingest/support.ts';
import { startEmbeddingPeer } from '../knowledge/embedding-peer.ts';

// Other Agency has no usage of its own: its month's spend is what each test writes.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;
/** An unpriced title model is never called on the platform key: no title spend or reservation beside the turns measured here. */
const UNPRICED_TITLES = 'test/unpriced-titles';

async function price(t: T, modelId: string, prices: { input: number; output: number }) {
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES (${modelId}, ${prices.input}, ${prices.output}, 0)
    ON CONFLICT (model_id) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok`);
}

/** A clean month for Other Agency: no usage, no budget, no reservations; then `spentUsd` of spend recorded now. */
async function startMonth(t: T, auth: string, spentUsd: number) {
  const db = t.context.t.db.pool;
  await db.query(sql.unsafe`DELETE FROM usage_events WHERE organization_id = (SELECT organization_id FROM agents WHERE id = ${agent})`);
  await db.query(sql.unsafe`DELETE FROM usage_reservations`);
  await t.context.t.http().delete('/api/ai/org-usage/budget').set('authorization', auth);
  if (spentUsd > 0)
    await t.context.t
      .http()
      .post('/api/ai/org-usage/events')
      .set('authorization', auth)
      .send({ events: [usageEvent({ costUsd: spentUsd, createdAt: new Date().toISOString() })] })
      .expect(200);
}

async function enforce(t: T, auth: string, monthlyLimitUsd: number) {
  await t.context.t.http().put('/api/ai/org-usage/budget').set('authorization', auth).send({ monthlyLimitUsd, enforce: true }).expect(200);
}

const spent = async (t: T, auth: string) =>
  (await t.context.t.http().get('/api/ai/org-usage/budget').set('authorization', auth).expect(200)).body.spentUsd as number;

const reservationCount = (t: T) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM usage_reservations`);

/** One turn posted as a client does; its status and whole body. */
async function post(base: string, auth: string, chatId: string, text: string) {
  const response = await fetch(`${base}${chatPath(agent)}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text)], trigger: 'submit-message' }),
  });
  return { status: response.status, body: await response.text() };
}

test.serial(
  '30 parallel turns at half an enforced limit, each model call a quarter of it: the month ends at the limit, not past it',
  async (t) => {
    // A call costs $0.75: its 1,000 output tokens at $750 per million (input is free), which is also its worst case.
    const peer = await provider(t, () => ({ kind: 'text', text: 'A paid answer.', usage: { prompt: 10, completion: 1000 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: UNPRICED_TITLES }));
    const auth = await bearer(t, 'owner@other.test');
    await price(t, 'test/quarter-model', { input: 0, output: 750 });
    await t.context.t
      .http()
      .patch(`/api/ai/agents/${agent}`)
      .set('authorization', auth)
      .send({ modelId: 'test/quarter-model', maxOutputTokens: 1000 })
      .expect(200);
    await startMonth(t, auth, 1.5);
    await enforce(t, auth, 3);

    const turns = await Promise.all(Array.from({ length: 30 }, (_, i) => post(base, auth, `quarter-${i}`, `question ${i}`)));

    const answered = turns.filter((turn) => turn.status === 200 && turn.body.includes('"type":"finish"'));
    const refused = turns.filter((turn) => !answered.includes(turn));
    for (const turn of refused) {
      // Refused at the door (402) or, admitted, its one model call refused before it was sent.
      if (turn.status === 402) t.is(JSON.parse(turn.body).errorCode, 'AI.BUDGET_EXCEEDED');
      else t.regex(turn.body, /"type":"error","errorText":"AI\.BUDGET_EXCEEDED: /);
    }
    t.is(answered.length, 2);
    t.is(peer.requests.length, 2);
    t.is(await spent(t, auth), 3);
    t.is(await reservationCount(t), 0, 'every reservation was released with its usage row');
  },
);

test.serial(
  'a turn whose next model call would cross the limit ends with an error naming AI.BUDGET_EXCEEDED, its answer so far saved',
  async (t) => {
    // Step 1 calls list_documents ($0.75); step 2 would need $0.75 more: $1.50 + $0.75 + $0.75 > $2.90.
    const peer = await provider(t, (_request, index) =>
      index === 0
        ? { kind: 'tool-call', toolName: 'list_documents', input: {}, usage: { prompt: 10, completion: 1000 } }
        : { kind: 'text', text: 'never sent' },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: UNPRICED_TITLES }));
    const auth = await bearer(t, 'owner@other.test');
    await price(t, 'test/quarter-model', { input: 0, output: 750 });
    const http = t.context.t.http;
    await http()
      .patch(`/api/ai/agents/${agent}`)
      .set('authorization', auth)
      .send({ modelId: 'test/quarter-model', maxOutputTokens: 1000 })
      .expect(200);
    await http()
      .put(`/api/ai/agents/${agent}/tools`)
      .set('authorization', auth)
      .send({ tools: [{ toolName: 'list_documents', permissionStatus: 'always_allow', providerKey: 'knowledge' }] })
      .expect(200);
    await startMonth(t, auth, 1.5);
    await enforce(t, auth, 2.9);

    const { chunks } = await sendChat(base, auth, 'crossing', [userMessage('list the documents')], { agent });

    t.true(chunks.some((chunk) => chunk.type === 'tool-output-available'));
    const error = chunks.find((chunk) => chunk.type === 'error');
    t.regex(error && 'errorText' in error ? error.errorText : '', /^AI\.BUDGET_EXCEEDED: .*\$2\.25 spent this month of a \$2\.90 limit/);
    t.is(peer.requests.length, 1);
    const stored = await http().get(`/api/ai/agents/${agent}/conversations/crossing`).set('authorization', auth).expect(200);
    const answer = stored.body.messages.at(-1);
    t.is(answer.role, 'assistant');
    t.like(
      answer.parts.find((part: { type: string }) => part.type === 'tool-list_documents'),
      { state: 'output-available' },
    );
    t.is(await spent(t, auth), 2.25);
    t.is(await reservationCount(t), 0);
  },
);

test.serial(
  'under an enforced budget a call of an agent without maxOutputTokens is sent with AI_BUDGET_OUTPUT_TOKENS; without one, with no limit',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'Bounded.', usage: { prompt: 10, completion: 2 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, budgetOutputTokens: 321, titleModel: UNPRICED_TITLES }));
    const auth = await bearer(t, 'owner@other.test');
    await price(t, 'test/quarter-model', { input: 0, output: 750 });
    await t.context.t
      .http()
      .patch(`/api/ai/agents/${agent}`)
      .set('authorization', auth)
      .send({ modelId: 'test/quarter-model', maxOutputTokens: null })
      .expect(200);
    await startMonth(t, auth, 0);

    t.is((await post(base, auth, 'unbounded', 'hello')).status, 200);
    t.is(peer.requests.at(-1)!.body.max_tokens, undefined);
    await enforce(t, auth, 100);
    t.is((await post(base, auth, 'bounded', 'hello')).status, 200);
    t.is(peer.requests.at(-1)!.body.max_tokens, 321);
  },
);

test.serial('embedding spend alone can use up an enforced budget: the next turn is 402, the next upload embeds nothing', async (t) => {
  const embedder = await startEmbeddingPeer();
  t.teardown(() => embedder.close());
  const config = chatConfig({ gatewayUrl: embedder.url });
  const base = await serve(t, { ...config, tools: { ...config.tools, embeddingModel: 'test/concepts' } });
  const auth = await bearer(t, 'owner@other.test');
  await startMonth(t, auth, 0);
  await price(t, 'test/concepts', { input: 10_000, output: 0 });

  const upload = (name: string) =>
    fetch(`${base}/api/ai/agents/${agent}/documents`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, text: 'Refunds take five to seven business days once the parcel is back.' }),
    });
  t.is((await upload('refunds.md')).status, 201);
  t.is(embedder.requests.length, 1);
  const rows = await t.context.t.db.pool.any(sql.type(z.strictObject({ action: z.string(), cost: z.number() }))`
    SELECT action_type::text AS action, cost_usd::float8 AS cost FROM usage_events WHERE model_id = 'test/concepts' AND agent_id = ${agent}`);
  t.is(rows.length, 1);
  t.is(rows[0]!.action, 'document_indexing');
  const embeddingSpend = rows[0]!.cost;
  t.true(embeddingSpend > 0);

  // A limit the embedding alone reached.
  await enforce(t, auth, embeddingSpend);
  const turn = await post(base, auth, 'after-embedding', 'hello');
  t.is(turn.status, 402);
  t.is(JSON.parse(turn.body).errorCode, 'AI.BUDGET_EXCEEDED');
  const refused = await upload('more.md');
  t.is(refused.status, 402);
  t.is(((await refused.json()) as { errorCode: string }).errorCode, 'AI.BUDGET_EXCEEDED');
  t.is(embedder.requests.length, 1, 'nothing was embedded for the refused upload');
});

test.serial('an upload whose worst-case embedding does not fit the budget is 402 before any embedding call', async (t) => {
  const embedder = await startEmbeddingPeer();
  t.teardown(() => embedder.close());
  const config = chatConfig({ gatewayUrl: embedder.url });
  const base = await serve(t, { ...config, tools: { ...config.tools, embeddingModel: 'test/concepts' } });
  const auth = await bearer(t, 'owner@other.test');
  await startMonth(t, auth, 0);
  // $1 per token: 200 bytes of text may be 200 tokens, over a $100 limit.
  await price(t, 'test/concepts', { input: 1_000_000, output: 0 });
  await enforce(t, auth, 100);
  const response = await fetch(`${base}/api/ai/agents/${agent}/documents`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'long.md', text: 'word '.repeat(40) }),
  });
  t.is(response.status, 402);
  t.is(embedder.requests.length, 0);
  t.is(await reservationCount(t), 0);
});

test.serial('on the platform key an unpriced embedding model is never called: an upload is 400 AI.MODEL_NOT_AVAILABLE', async (t) => {
  const embedder = await startEmbeddingPeer();
  t.teardown(() => embedder.close());
  const config = chatConfig({ gatewayUrl: embedder.url });
  const base = await serve(t, { ...config, tools: { ...config.tools, embeddingModel: 'test/unpriced-embedder' } });
  const auth = await bearer(t, 'owner@other.test');
  const response = await fetch(`${base}/api/ai/agents/${agent}/documents`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'note.md', text: 'Shipping takes three days.' }),
  });
  t.is(response.status, 400);
  const body = (await response.json()) as { errorCode: string; message: { en: string } };
  t.is(body.errorCode, 'AI.MODEL_NOT_AVAILABLE');
  t.regex(body.message.en, /test\/unpriced-embedder/);
  t.is(embedder.requests.length, 0);
});
