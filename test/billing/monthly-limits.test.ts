import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { withTestApp } from '../helpers/app.ts';
import { chatConfig, provider, serve, userMessage } from '../chat/support.ts';
import { usageEvent } from '../ingest/support.ts';
import { SHOP } from '../channel/support.ts';
import { as, business, owner, plan, type T } from './support.ts';

// The monthly limits of a business's plan (docs/billing.md, "Limits"): its end-user messages over all
// its channels, and its usage cost through the reservation an enforced budget uses.
const test = withTestApp(anyTest, { app: { config: chatConfig() } });

/** A business on a plan with `limits`, an agent of it (on `settings`) and that agent's enabled channel. */
async function businessWithChannel(t: T, limits: object, settings: object = {}) {
  const shop = await business(t, `Shop ${Object.keys(limits).join()}`, await plan(t, { limits }));
  const staff = as(t, await owner(t), shop.id);
  const agent = (await staff.post('/api/ai/agents', { name: 'Front desk', ...settings }).expect(201)).body.id as string;
  const channel = await staff
    .put(`/api/ai/agents/${agent}/channel`, { enabled: true, allowedOrigins: [SHOP], endUserMessagesPerDay: 100 })
    .expect(200);
  return { shop, agent, publishableKey: channel.body.publishableKey as string };
}

const json = { 'content-type': 'application/json', origin: SHOP };

async function session(base: string, publishableKey: string): Promise<string> {
  const opened = await fetch(`${base}/api/public/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ publishableKey }) });
  return ((await opened.json()) as { sessionToken: string }).sessionToken;
}

const publicPost = (base: string, token: string, chatId: string) =>
  fetch(`${base}/api/public/chat`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ id: chatId, messages: [userMessage('hello', `m-${chatId}`)] }),
  });

test.serial(
  'maxEndUserMessagesPerMonth: 20 messages at once from 20 end users on two channels of a business allowed 5 run 5; the rest are 429 until the next UTC month',
  async (t) => {
    const peer = await provider(t, () => ({ kind: 'text', text: 'ok' }));
    const now = new Date('2026-11-28T21:30:00.000Z');
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'test/unpriced-titles' }), { clock: () => now });
    const { shop, publishableKey } = await businessWithChannel(t, { maxEndUserMessagesPerMonth: 5 });
    // A second agent and channel of the same business: the month is counted over both.
    const staff = as(t, await owner(t), shop.id);
    const second = (await staff.post('/api/ai/agents', { name: 'Back desk' }).expect(201)).body.id as string;
    const secondKey = (await staff.put(`/api/ai/agents/${second}/channel`, { enabled: true, allowedOrigins: [SHOP] }).expect(200)).body
      .publishableKey as string;
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => session(base, i % 2 === 0 ? publishableKey : secondKey)));
    const responses = await Promise.all(tokens.map((token, i) => publicPost(base, token, `month-${i}`)));
    const bodies = await Promise.all(responses.map((response) => response.text()));
    t.is(responses.filter((response) => response.status === 200).length, 5);
    const refused = responses.filter((response) => response.status === 429);
    t.is(refused.length, 15);
    // 2 days and 2.5 hours to 2026-12-01T00:00Z.
    for (const response of refused) t.is(response.headers.get('retry-after'), String(2 * 86400 + 2.5 * 3600));
    t.like(JSON.parse(bodies[responses.indexOf(refused[0]!)]!), {
      errorCode: 'AI.END_USER_QUOTA_EXCEEDED',
      metadata: { limit: 5, retryAfterSeconds: 2 * 86400 + 2.5 * 3600 },
    });
    const counted = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ messages: z.number() }))`
      SELECT messages FROM organization_monthly_messages WHERE organization_id = ${shop.id} AND month = '2026-11-01'`);
    t.is(counted, 5);
    // The next UTC month starts again.
    const december = new Date('2026-12-01T00:00:01.000Z');
    const nextBase = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'test/unpriced-titles' }), { clock: () => december });
    t.is((await publicPost(nextBase, await session(nextBase, publishableKey), 'december')).status, 200);
  },
);

test.serial(
  'monthlyUsageUsd: 20 staff turns at once in a business allowed $1 a month, each call reserving $0.75, make one model call; at the limit the next is 402',
  async (t) => {
    // 1,000 output tokens at $750 per million: a call's worst case and actual cost are $0.75.
    const peer = await provider(t, () => ({ kind: 'text', text: 'A paid answer.', usage: { prompt: 10, completion: 1000 } }));
    const base = await serve(t, chatConfig({ gatewayUrl: peer.url, titleModel: 'test/unpriced-titles' }));
    await t.context.t.db.pool.query(sql.unsafe`
      INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
      VALUES ('test/quarter-model', 0, 750, 0) ON CONFLICT (model_id) DO NOTHING`);
    const { shop, agent } = await businessWithChannel(t, { monthlyUsageUsd: 1 }, { modelId: 'test/quarter-model', maxOutputTokens: 1000 });
    const auth = `Bearer ${await owner(t)}`;
    const staffPost = async (chatId: string) => {
      const response = await fetch(`${base}/api/ai/agents/${agent}/chat`, {
        method: 'POST',
        headers: { authorization: auth, 'x-org-id': shop.id, 'content-type': 'application/json' },
        body: JSON.stringify({ id: chatId, messages: [userMessage('hello', `s-${chatId}`)] }),
      });
      return { status: response.status, text: await response.text() };
    };
    const turns = await Promise.all(Array.from({ length: 20 }, (_, i) => staffPost(`usage-${i}`)));
    t.is(peer.requests.length, 1);
    t.is(turns.filter((turn) => turn.text.includes('AI.BUDGET_EXCEEDED')).length, 19);
    const spent = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ spent: z.string() }))`
      SELECT coalesce(sum(cost_usd), 0)::text AS spent FROM usage_events WHERE organization_id = ${shop.id}`);
    t.is(Number(spent), 0.75);
    // Usage written through the events API brings the month to the limit: the next turn is refused at the door.
    await as(t, await owner(t), shop.id)
      .post('/api/ai/org-usage/events', { events: [usageEvent({ costUsd: 0.25, createdAt: new Date().toISOString() })] })
      .expect(200);
    const door = await staffPost('door');
    t.is(door.status, 402);
    t.is(JSON.parse(door.text).errorCode, 'AI.BUDGET_EXCEEDED');
    t.is(peer.requests.length, 1);
  },
);
