import { sql } from 'slonik';
import { z } from 'zod';
import { uuidv7 } from 'uuidv7';
import { ORGANIZATIONS } from '../seeds/demo-fixtures.ts';
import type { AttackCase } from './attack-cases.ts';
import { chatBody, type ChannelLab } from './channel-lab.ts';
import type { Harness } from './harness.ts';

/*
 * The web channel's budget holes of the end-user review: what a refused budget tells a visitor,
 * and whether an enforced budget holds when the provider counts more input than the service
 * estimated. Both on Demo Agency's month, whose budget they set and delete again.
 */

const NOT_AVAILABLE = 'This assistant is not available right now.';
const staff = { staff: true } as const;

async function price(harness: Harness, modelId: string, input: number, output: number) {
  await harness.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES (${modelId}, ${input}, ${output}, 0)
    ON CONFLICT (model_id) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok`);
}

/** Enforces a budget of `limitUsd` on Demo Agency; answers the month's spend as the budget reads it. */
async function enforce(lab: ChannelLab, limitUsd: number): Promise<number> {
  const put = await lab.call('PUT', '/api/ai/org-usage/budget', { monthlyLimitUsd: limitUsd, enforce: true }, staff);
  if (put.status !== 200) throw new Error(`the budget was not set: ${put.status} ${put.text.slice(0, 200)}`);
  return put.json().spentUsd as number;
}

/** Whole cents, up: a limit just above a spend. */
const cents = (usd: number) => Math.ceil(usd * 100 - 1e-9) / 100;
/** A sum of dollar amounts as the API takes it (float addition leaves a tail). */
const usd = (amount: number) => Math.round(amount * 100) / 100;

/** Demo Agency's spend of the UTC month, summed exactly (numeric) from its usage rows. */
async function monthSpend(harness: Harness): Promise<number> {
  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return Number(
    await harness.db.pool.oneFirst(sql.type(z.strictObject({ spent: z.string() }))`
      SELECT coalesce(sum(cost_usd), 0)::text AS spent FROM usage_events
      WHERE organization_id = ${ORGANIZATIONS.demoAgency.id} AND created_at >= ${sql.timestamp(from)} AND created_at < ${sql.timestamp(to)}`),
  );
}

/**
 * A refused budget seen by an anonymous visitor: at the door (402) and inside the stream (a model
 * call's reservation refused). Held when neither names an amount, a limit or metadata, and the
 * staff route still does.
 */
export async function visitorReadsSpend(lab: ChannelLab, harness: Harness): Promise<AttackCase> {
  // A call's worst case is $0.75: 1,000 output tokens at $750 per million.
  await price(harness, 'fuzz/quarter-model', 0, 750);
  const agent = await lab.agent('Budget (fuzz)', 'fuzz/quarter-model', { endUserMessagesPerDay: 100 });
  await lab.call('PATCH', `/api/ai/agents/${agent.id}`, { maxOutputTokens: 1000 }, staff);
  const token = await lab.session(agent.publishableKey);
  const event = {
    id: uuidv7(),
    modelId: 'fuzz/spend',
    actionType: 'user_interaction',
    source: 'system',
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    costUsd: 1,
    createdAt: new Date().toISOString(),
  };
  await lab.call('POST', '/api/ai/org-usage/events', { events: [event] }, staff);
  const spent = await enforce(lab, 1_000_000);
  // At the door: the limit is at the spend.
  await enforce(lab, Math.max(0.01, Math.floor(spent * 100) / 100));
  const door = await lab.call('POST', '/api/public/chat', chatBody('fuzz-budget-door', 'hello'), { token });
  const staffDoor = await lab.call('POST', `/api/ai/agents/${agent.id}/chat`, chatBody('fuzz-budget-door', 'hello'), staff);
  // In the stream: the door lets the turn in, the model call's $0.75 does not fit the $0.50 left.
  await enforce(lab, usd(cents(spent) + 0.5));
  const stream = await lab.call('POST', '/api/public/chat', chatBody('fuzz-budget-stream', 'hello'), { token });
  await lab.call('DELETE', '/api/ai/org-usage/budget', undefined, staff);
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, staff);
  const body = door.status === 402 ? door.json() : {};
  const doorHeld =
    door.status === 402 &&
    body.errorCode === 'AI.BUDGET_EXCEEDED' &&
    (body.message as { en?: string }).en === NOT_AVAILABLE &&
    !('metadata' in body) &&
    !door.text.includes('$');
  const streamHeld =
    stream.status === 200 && stream.text.includes(`"errorText":"AI.BUDGET_EXCEEDED: ${NOT_AVAILABLE}"`) && !stream.text.includes('$');
  const staffKept = staffDoor.status === 402 && staffDoor.text.includes('$');
  return {
    name: "a visitor reading the organization's spend",
    held: doorHeld && streamHeld && staffKept,
    detail:
      `the door: ${door.status} ${door.text.slice(0, 140)}; the stream's error: ${streamHeld ? 'no amount' : stream.text.slice(-300)}; ` +
      `the staff's 402 ${staffKept ? 'names the amounts' : `is ${staffDoor.status} ${staffDoor.text.slice(0, 100)}`}`,
  };
}

/**
 * 30 parallel turns of 30 visitors, titles on, against a provider that reports twice the input
 * tokens the service estimated, at an enforced limit $0.02 above the month's spend: held when the
 * month ends at or under the limit (with a 10 % margin it ended over, as the review found with 10x).
 */
export async function reservationMargin(lab: ChannelLab, harness: Harness): Promise<AttackCase> {
  await price(harness, 'fuzz/input-heavy', 2, 0);
  const agent = await lab.agent('Margin (fuzz)', 'fuzz/input-heavy', { endUserMessagesPerDay: 100 });
  await lab.call('PATCH', `/api/ai/agents/${agent.id}`, { maxOutputTokens: 20 }, staff);
  const tokens = await Promise.all(Array.from({ length: 30 }, () => lab.session(agent.publishableKey)));
  const limit = usd(cents(await enforce(lab, 1_000_000)) + 0.02);
  await enforce(lab, limit);
  lab.script.double = true;
  const question = (i: number) => `Question ${i}: ${'please tell me about the opening hours of the shop on holidays '.repeat(30)}`;
  const turns = await Promise.all(
    tokens.map((token, i) => lab.call('POST', '/api/public/chat', chatBody(`fuzz-margin-${i}`, question(i)), { token })),
  );
  lab.script.double = false;
  const spent = await monthSpend(harness);
  await lab.call('DELETE', '/api/ai/org-usage/budget', undefined, staff);
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, staff);
  const answered = turns.filter((turn) => turn.status === 200 && !turn.text.includes('"type":"error"')).length;
  return {
    name: 'an enforced budget against a provider reporting twice the estimated input',
    held: spent <= limit + 1e-9 && answered > 0 && answered < 30,
    detail: `30 parallel public turns with titles, each call's input reported at twice the estimate: ${answered} answered; the month ends at $${spent.toFixed(6)} of a $${limit.toFixed(2)} limit`,
  };
}
