import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { estimateTokens, MESSAGE_OVERHEAD_TOKENS } from '../../app/metering/tokens.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import type { ChatRequest } from '../helpers/openai-peer.ts';
import { usageEvent } from '../ingest/support.ts';
import { bearer, chatConfig, chatPath, provider, serve, userMessage } from '../chat/support.ts';
import { anonymousSession, putChannel, SHOP, type T } from './support.ts';

// Other Agency's channel on Other Helper: its month's spend is what each test writes.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const agent = AGENTS.otherHelper.id;
const OWNER = 'owner@other.test';
const NOT_AVAILABLE = 'This assistant is not available right now.';

async function price(t: T, modelId: string, prices: { input: number; output: number }) {
  await t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES (${modelId}, ${prices.input}, ${prices.output}, 0)
    ON CONFLICT (model_id) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok`);
}

/** A clean month for Other Agency (no usage, reservations or budget), `spentUsd` recorded, the agent on `modelId` and no tools. */
async function startMonth(t: T, auth: string, spentUsd: number, agentSettings: object) {
  const db = t.context.t.db.pool;
  await db.query(sql.unsafe`DELETE FROM usage_events WHERE organization_id = (SELECT organization_id FROM agents WHERE id = ${agent})`);
  await db.query(sql.unsafe`DELETE FROM usage_reservations`);
  const http = t.context.t.http;
  await http().delete('/api/ai/org-usage/budget').set('authorization', auth);
  await http().patch(`/api/ai/agents/${agent}`).set('authorization', auth).send(agentSettings).expect(200);
  await http().put(`/api/ai/agents/${agent}/tools`).set('authorization', auth).send({ tools: [] }).expect(200);
  if (spentUsd > 0)
    await http()
      .post('/api/ai/org-usage/events')
      .set('authorization', auth)
      .send({ events: [usageEvent({ costUsd: spentUsd, createdAt: new Date().toISOString() })] })
      .expect(200);
}

async function enforce(t: T, auth: string, monthlyLimitUsd: number) {
  await t.context.t.http().put('/api/ai/org-usage/budget').set('authorization', auth).send({ monthlyLimitUsd, enforce: true }).expect(200);
}

/** The month's spend to the cent's fraction, summed in PostgreSQL (numeric). */
const spentUsd = (t: T) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ spent: z.string() }))`
    SELECT coalesce(sum(cost_usd), 0)::text AS spent FROM usage_events
    WHERE organization_id = (SELECT organization_id FROM agents WHERE id = ${agent})`);

async function publicPost(base: string, token: string, chatId: string, text: string) {
  const response = await fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: SHOP },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text, `m-${chatId}`)] }),
  });
  return { status: response.status, text: await response.text() };
}

async function staffPost(base: string, auth: string, chatId: string, text: string) {
  const response = await fetch(`${base}${chatPath(agent)}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: chatId, messages: [userMessage(text, `s-${chatId}`)] }),
  });
  return { status: response.status, text: await response.text() };
}

test.serial(
  'a refused budget tells an end user no amount and no limit, in the 402 and in the stream; staff keep the figures',
  async (t) => {
    // A call's worst case is $0.75 (1,000 output tokens at $750 per million; input is free).
    const peer = await provider(t, () => ({ kind: 'text', text: 'A paid answer.', usage: { prompt: 10, completion: 1000 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'test/unpriced-titles' }));
    const auth = await bearer(t, OWNER);
    await price(t, 'test/quarter-model', { input: 0, output: 750 });
    await startMonth(t, auth, 1, { modelId: 'test/quarter-model', maxOutputTokens: 1000 });
    const { publishableKey } = await putChannel(t, {}, agent, OWNER);
    const session = await anonymousSession(t, publishableKey);

    // At the door: the month's $1.00 is at the limit.
    await enforce(t, auth, 1);
    const door = await publicPost(base, session.sessionToken, 'door', 'hello');
    t.is(door.status, 402);
    t.deepEqual(JSON.parse(door.text), {
      statusCode: 402,
      errorCode: 'AI.BUDGET_EXCEEDED',
      message: { en: NOT_AVAILABLE, es: 'Este asistente no está disponible en este momento.' },
    });
    const staffDoor = await staffPost(base, auth, 'door', 'hello');
    t.is(staffDoor.status, 402);
    t.regex(JSON.parse(staffDoor.text).message.en, /\$1\.00 spent this month of a \$1\.00 limit/);

    // In the stream: the door lets the turn in ($1.00 of $1.50), the model call's $0.75 does not fit.
    await enforce(t, auth, 1.5);
    const stream = await publicPost(base, session.sessionToken, 'stream', 'hello');
    t.is(stream.status, 200);
    t.true(stream.text.includes(`"type":"error","errorText":"AI.BUDGET_EXCEEDED: ${NOT_AVAILABLE}"`), stream.text);
    t.false(stream.text.includes('$'));
    const staffStream = await staffPost(base, auth, 'stream', 'hello');
    t.regex(staffStream.text, /"errorText":"AI\.BUDGET_EXCEEDED: .*\$1\.00 spent this month of a \$1\.50 limit/);
    t.is(peer.requests.length, 0);
    await putChannel(t, { enabled: false }, agent, OWNER);
  },
);

/** The service's estimate of a request's input tokens (app/metering/tokens.ts: each message's text and its overhead; no tools). */
const estimateOf = (request: ChatRequest) =>
  request.messages.reduce((sum, message) => {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    return sum + MESSAGE_OVERHEAD_TOKENS + estimateTokens(text);
  }, 0);

test.serial(
  'an enforced budget holds against a provider that reports twice the estimated input tokens: 30 parallel public turns with titles end at or under the limit',
  async (t) => {
    // Input at $2 per million tokens, output free: a turn's agent call and title call cost what their input is reported to be.
    let served = 0;
    const peer = await provider(
      t,
      (request) => {
        served++;
        return { kind: 'text', text: 'Answered.', usage: { prompt: 2 * estimateOf(request), completion: 5 } };
      },
      { titles: 'script' },
    );
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url }));
    const auth = await bearer(t, OWNER);
    await price(t, 'test/input-heavy', { input: 2, output: 0 });
    await startMonth(t, auth, 0, { modelId: 'test/input-heavy', maxOutputTokens: 20 });
    const { publishableKey } = await putChannel(t, { endUserMessagesPerDay: 100 }, agent, OWNER);
    await enforce(t, auth, 0.02);
    // About 380 tokens a call: each reserves about $0.0015 at twice its estimate, a turn two calls, so a few of the 30 fit.
    const question = (i: number) => `Question ${i}: ${'please tell me about the opening hours of the shop on holidays '.repeat(30)}`;
    const sessions = await Promise.all(Array.from({ length: 30 }, () => anonymousSession(t, publishableKey)));
    const turns = await Promise.all(sessions.map((session, i) => publicPost(base, session.sessionToken, `parallel-${i}`, question(i))));

    const answered = turns.filter(
      (turn) => turn.status === 200 && turn.text.includes('"type":"finish"') && !turn.text.includes('"type":"error"'),
    );
    t.true(answered.length > 0, 'some turns fit the limit');
    t.true(answered.length < 30, 'the limit refused the rest');
    t.true(served > answered.length, 'title calls were made and spent too');
    const spent = Number(await spentUsd(t));
    t.true(spent <= 0.02, `spent $${spent} of a $0.02 limit`);
    t.true(spent > 0.01);
    await putChannel(t, { enabled: false }, agent, OWNER);
  },
);
