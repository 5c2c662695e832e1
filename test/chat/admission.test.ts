import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { usageEvent } from '../ingest/support.ts';
import { bearer, chatConfig, chatPath, provider, serve, userMessage, type T } from './support.ts';

// Development mode: a BYOK baseUrl on 127.0.0.1 passes the outbound URL policy.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });

/** One turn as a client posts it; the whole answer read (status, body text, when it ended). */
async function post(base: string, auth: string, chatId: string, text: string, agent: string) {
  const response = await fetch(`${base}${chatPath(agent)}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text)], trigger: 'submit-message' }),
  });
  const body = await response.text();
  return { status: response.status, body, endedAt: performance.now() };
}

async function createAgent(t: T, auth: string, body: object): Promise<string> {
  const created = await t.context.t.http().post('/api/ai/agents').set('authorization', auth).send(body).expect(201);
  return created.body.id as string;
}

async function price(t: T, modelId: string, inputUsdPerMTok: number) {
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES (${modelId}, ${inputUsdPerMTok}, 0, 0) ON CONFLICT (model_id) DO NOTHING`);
}

test.serial('GET /api/ai/models lists the price list with anyModel false on the platform key', async (t) => {
  const auth = await bearer(t, 'member@demo.test');
  const { body } = await t.context.t.http().get('/api/ai/models').set('authorization', auth).expect(200);
  t.false(body.anyModel);
  t.deepEqual(
    body.models.find((model: { modelId: string }) => model.modelId === 'openai/gpt-4o-mini'),
    { modelId: 'openai/gpt-4o-mini', inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6, cacheReadUsdPerMTok: 0.075 },
  );
  t.false(body.models.some((model: { modelId: string }) => model.modelId === 'openai/o3-mini'));
  await t.context.t.http().get('/api/ai/models').expect(401);
});

test.serial(
  'on the platform key an unpriced model is 400 AI.MODEL_NOT_AVAILABLE before any stream, the provider never called',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'should not run' }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t);
    const agent = await createAgent(t, auth, { name: 'Unpriced', modelId: 'vendor/unpriced-model' });
    const refused = await post(base, auth, 'unpriced', 'hello', agent);
    t.is(refused.status, 400);
    const body = JSON.parse(refused.body);
    t.is(body.errorCode, 'AI.MODEL_NOT_AVAILABLE');
    t.regex(body.message.en, /"vendor\/unpriced-model" is not available.*GET \/api\/ai\/models/);
    t.is(peer.requests.length, 0);
    await t.context.t.http().get(`/api/ai/agents/${agent}/conversations/unpriced`).set('authorization', auth).expect(404);

    // The deployment's default model obeys the same rule for an agent without its own.
    const unpricedDefault = await serve(t, chatConfig({ gatewayUrl: peer.url, defaultModel: 'vendor/unpriced-default' }));
    const plain = await createAgent(t, auth, { name: 'Default model' });
    const byDefault = await post(unpricedDefault, auth, 'unpriced-default', 'hello', plain);
    t.is(byDefault.status, 400);
    t.regex(JSON.parse(byDefault.body).message.en, /unpriced-default/);
    t.is(peer.requests.length, 0);

    // A priced model runs.
    const ran = await post(base, auth, 'priced', 'hello', plain);
    t.is(ran.status, 200);
    t.is(peer.requests.at(-1)!.body.model, 'openai/gpt-4o-mini');
  },
);

test.serial("with the organization's own key any model runs, at cost 0 when unpriced, and GET /api/ai/models says anyModel", async (t) => {
  const platform = await provider(t, () => ({ kind: 'text', text: 'platform' }));
  const own = await provider(t, () => ({ kind: 'text', text: 'own', usage: { prompt: 77, completion: 1 } }));
  const base = await serve(t, chatConfig({ gatewayUrl: platform.url }));
  const auth = await bearer(t);
  const http = t.context.t.http;
  await http()
    .put('/api/ai/provider-key')
    .set('authorization', auth)
    .send({ apiKey: 'sk-own-key-for-any-model', baseUrl: own.url })
    .expect(204);
  t.teardown(() => http().delete('/api/ai/provider-key').set('authorization', auth));
  t.true((await http().get('/api/ai/models').set('authorization', auth).expect(200)).body.anyModel);
  const agent = await createAgent(t, auth, { name: 'Any model', modelId: 'vendor/unpriced-model' });
  const ran = await post(base, auth, 'byok-unpriced', 'hello', agent);
  t.is(ran.status, 200);
  t.is(own.requests[0]!.body.model, 'vendor/unpriced-model');
  t.is(platform.requests.length, 0);
  const cost = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ cost: z.string() }))`
    SELECT cost_usd::text AS cost FROM usage_events WHERE agent_id = ${agent} AND input_tokens = 77`);
  t.is(Number(cost), 0);
});

test.serial(
  'twenty concurrent turns at an organization one turn under its enforced limit: no turn starts after the stored spend crossed it',
  async (t) => {
    // Each turn costs $1 (1000 prompt tokens at $1000 per million); Other Agency has spent $0 this month.
    const peer = await provider(t, () => ({ kind: 'text', text: 'A paid answer.', usage: { prompt: 1000, completion: 0 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, 'owner@other.test');
    const http = t.context.t.http;
    await price(t, 'test/budget-model', 1000);
    const agent = AGENTS.otherHelper.id;
    await http().patch(`/api/ai/agents/${agent}`).set('authorization', auth).send({ modelId: 'test/budget-model' }).expect(200);
    const budget = await http()
      .put('/api/ai/org-usage/budget')
      .set('authorization', auth)
      .send({ monthlyLimitUsd: 0.5, enforce: true })
      .expect(200);
    t.like(budget.body, { monthlyLimitUsd: 0.5, enforce: true, spentUsd: 0 });

    // Ten at once; the other ten as soon as the first answer has finished (its usage is stored
    // before its `finish` chunk), while the rest of the first ten may still run.
    const first = Array.from({ length: 10 }, (_, i) => post(base, auth, `budget-a${i}`, `question ${i}`, agent));
    const crossedAt = await Promise.any(first.map(async (turn) => ((await turn).status === 200 ? (await turn).endedAt : Promise.reject())));
    const second = Array.from({ length: 10 }, (_, i) => post(base, auth, `budget-b${i}`, `question ${i}`, agent));
    const wave1 = await Promise.all(first);
    const wave2 = await Promise.all(second);

    for (const turn of wave2) {
      t.is(turn.status, 402);
      const body = JSON.parse(turn.body);
      t.is(body.errorCode, 'AI.BUDGET_EXCEEDED');
      t.regex(body.message.en, /\$\d+\.\d\d spent this month of a \$0\.50 limit/);
    }
    const started = wave1.filter((turn) => turn.status === 200);
    for (const turn of wave1) t.true(turn.status === 200 || turn.status === 402);
    // A turn that started either ran to its end and was paid for, or found its model call's
    // reservation refused (the spend had crossed the limit meanwhile) and was never sent.
    const answered = started.filter((turn) => /"type":"finish"/.test(turn.body));
    for (const turn of started.filter((turn) => !answered.includes(turn)))
      t.regex(turn.body, /"type":"error","errorText":"AI\.BUDGET_EXCEEDED: /);
    t.is(peer.requests.length, answered.length);
    t.true(crossedAt > 0);
    const stored = await http().get('/api/ai/org-usage/budget').set('authorization', auth).expect(200);
    t.is(stored.body.spentUsd, answered.length);
    t.is(stored.body.status, 'exceeded');
    t.log(`first wave: ${started.length} of 10 started, ${answered.length} answered; second wave: 0 of 10`);

    // Ingestion is never refused for a budget: it records spend that already happened.
    await http()
      .post('/api/ai/org-usage/events')
      .set('authorization', auth)
      .send({ events: [usageEvent({ modelId: 'test/budget-model', createdAt: new Date().toISOString() })] })
      .expect(200);

    // Without enforcement the same organization chats again (the change applies at once).
    await http().put('/api/ai/org-usage/budget').set('authorization', auth).send({ monthlyLimitUsd: 0.5 }).expect(200);
    t.is((await post(base, auth, 'budget-after', 'again', agent)).status, 200);
    t.false((await http().get('/api/ai/org-usage/budget').set('authorization', auth).expect(200)).body.enforce);
    await http().delete('/api/ai/org-usage/budget').set('authorization', auth).expect(204);
  },
);
