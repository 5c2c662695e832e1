/**
 * What metering adds to a chat turn, two rows of `npm run bench:chat` (also alone:
 * `npm run bench:chat:metering`, `BENCH_METERING_TURNS` turns per variant, default 200):
 *
 * - **Budget reservation.** Text turns at c=1 of one model call each (titles off), alternating in
 *   rounds between the organization without a budget, with one far from its limit but not
 *   enforced (no reservation), and with it enforced (`reserve_usage` before the call; a settlement
 *   after it only for a call past its worst case or asking for tools, none here); the reservation
 *   is the difference of the last two. Per
 *   variant: the service's CPU per turn, its PostgreSQL statements per turn, first chunk and whole
 *   turn p50. Then the two statements alone, timed from this process through a slonik pool, one
 *   after the other (their round trip and PostgreSQL's work, no service around them).
 * - **Titles.** New conversations at c=1 through three services in turn: titles off
 *   (`AI_TITLE_MODEL` a model missing from the price list: the documented way, no title call), on
 *   with the provider answering the title call at once, and on with the title call answered after
 *   `SLOW_TITLE_MS`. The first text chunk of each is compared with titles off.
 */
import { performance } from 'node:perf_hooks';
import { uuidv7 } from 'uuidv7';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { deleteBudget, upsertBudget } from '../../sql/usage-budgets.ts';
import { deleteReservations, reserveUsage, settleReservation } from '../../sql/usage-reservations.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { DEFAULT_TITLE, startOpenAiPeer, type Reply } from '../../test/helpers/openai-peer.ts';
import { cpuMsOf, startService, statementsOf, stopService, type ServiceProcess } from '../service-process.ts';
import { percentile, runConcurrent, timeStream, type Sample } from './timing.ts';

const TURNS = Number(process.env.BENCH_METERING_TURNS ?? 200);
const ROUNDS = 4;
/** How long the slow variant's title call waits before it answers. */
export const SLOW_TITLE_MS = 2_000;
/** A model id absent from the price list: on the platform's key, titles stay the first line. */
const UNPRICED_TITLE_MODEL = 'bench/unpriced-title-model';
const log = (line: string) => process.stderr.write(`${line}\n`);

type BudgetState = 'none' | 'alerts' | 'enforced';
type Variant = { name: string; samples: Sample[]; cpuMs: number; statements: Map<string, number> };

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const p = (samples: Sample[], key: keyof Sample, at: number) =>
  percentile(
    samples.map((s) => s[key]),
    at,
  );

/** Runs the two measurements on a database and provider of their own; answers the lines to print. */
export async function measureMetering(): Promise<string[]> {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  let slowTitles = false;
  const provider = await startOpenAiPeer(
    (request): Reply | Promise<Reply> => {
      const title: Reply = { kind: 'text', text: DEFAULT_TITLE, usage: { prompt: 40, completion: 3 } };
      if (request.stream !== true) return slowTitles ? delay(SLOW_TITLE_MS).then(() => title) : title;
      return { kind: 'text', text: 'The scripted provider answers with a short paragraph of text.', pieces: 8 };
    },
    { titles: 'script' },
  );
  const agent = AGENTS.support.id;
  const auth = {
    authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`,
    'content-type': 'application/json',
  };
  let counter = 0;
  const turn = (service: ServiceProcess) => async (): Promise<Sample> => {
    const started = performance.now();
    const response = await fetch(`${service.base}/api/ai/agents/${agent}/chat`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        id: `metering-${counter++}`,
        messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
      }),
    });
    if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
    return timeStream(response, started, (data) => data.includes('"type":"text-delta"'));
  };
  const budget = (service: ServiceProcess, state: BudgetState) =>
    fetch(`${service.base}/api/ai/org-usage/budget`, {
      method: state === 'none' ? 'DELETE' : 'PUT',
      headers: auth,
      ...(state === 'none' ? {} : { body: JSON.stringify({ monthlyLimitUsd: 1_000_000_000, enforce: state === 'enforced' }) }),
    }).then((response) => {
      if (response.status >= 300 && response.status !== 404) throw new Error(`budget answered ${response.status}`);
    });
  const round = async (service: ServiceProcess, variant: Variant, turns: number) => {
    await statementsOf(service.child);
    const before = cpuMsOf(service.child.pid!);
    variant.samples.push(...(await runConcurrent(turns, 1, turn(service))));
    variant.cpuMs += cpuMsOf(service.child.pid!) - before;
    for (const [text, n] of Object.entries(await statementsOf(service.child)))
      variant.statements.set(text, (variant.statements.get(text) ?? 0) + n);
  };
  const perRound = Math.max(1, Math.round(TURNS / ROUNDS));
  const variant = (name: string): Variant => ({ name, samples: [], cpuMs: 0, statements: new Map() });

  // The reservation: one service, titles off (one model call a turn), the budget switched between
  // rounds. A budget alone (not enforced) reads the spend at the turn's door and checks its alerts
  // after the usage write; enforcing it adds the reservation to each model call (and its
  // settlement to a call that asks for tools or is reported past its worst case: none here).
  const plain = await startService({ databaseUrl: db.url, gatewayUrl: provider.url, titleModel: UNPRICED_TITLE_MODEL });
  const budgets: [Variant, BudgetState][] = [
    [variant('no budget'), 'none'],
    [variant('budget, not enforced: no reservation'), 'alerts'],
    [variant('budget enforced: reserve (released by the usage write)'), 'enforced'],
  ];
  await runConcurrent(40, 1, turn(plain));
  for (let i = 0; i < ROUNDS; i++) {
    for (const [target, state] of i % 2 === 0 ? budgets : [...budgets].reverse()) {
      await budget(plain, state);
      await runConcurrent(5, 1, turn(plain));
      await round(plain, target, perRound);
    }
  }
  await budget(plain, 'none');
  await stopService(plain.child);
  const [none, alerts, reserving] = budgets.map(([v]) => v) as [Variant, Variant, Variant];

  // The two statements alone, through a pool in this process, against the same seeded organization.
  await upsertBudget(db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    monthlyLimitUsd: 1_000_000_000,
    alertThresholdsPct: [50, 80, 100],
    enforce: true,
    now: new Date(),
  });
  const reserveMs: number[] = [];
  const settleMs: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 1_000; i++) {
    const now = new Date();
    const id = uuidv7();
    ids.push(id);
    let t = performance.now();
    await reserveUsage(db.pool, {
      id,
      organizationId: ORGANIZATIONS.demoAgency.id,
      modelId: 'openai/gpt-4o-mini',
      inputTokens: 300,
      outputTokens: 4_096,
      from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
      to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
      now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    reserveMs.push(performance.now() - t);
    t = performance.now();
    await settleReservation(db.pool, { id, modelId: 'openai/gpt-4o-mini', inputTokens: 280, outputTokens: 12, cacheReadTokens: 0 });
    settleMs.push(performance.now() - t);
    // Released in batches, as each call's usage row releases its own: the live set stays small.
    if (ids.length === 20) await deleteReservations(db.pool, ids.splice(0));
  }
  await deleteBudget(db.pool, ORGANIZATIONS.demoAgency.id);

  // Titles: three services, the variants in turn within each round.
  const titlesOff = await startService({ databaseUrl: db.url, gatewayUrl: provider.url, titleModel: UNPRICED_TITLE_MODEL });
  const titlesOn = await startService({ databaseUrl: db.url, gatewayUrl: provider.url });
  const [off, fast, slow] = [
    variant('titles off'),
    variant('titles on, title answered at once'),
    variant(`titles on, title answered after ${SLOW_TITLE_MS} ms`),
  ];
  await runConcurrent(40, 1, turn(titlesOff));
  await runConcurrent(40, 1, turn(titlesOn));
  for (let i = 0; i < ROUNDS; i++) {
    await round(titlesOff, off, perRound);
    slowTitles = false;
    await round(titlesOn, fast, perRound);
    slowTitles = true;
    await round(titlesOn, slow, perRound);
    // The slow title calls of this round end before the next round's other variants run.
    await delay(SLOW_TITLE_MS + 200);
  }
  const titleCalls = provider.requests.filter((request) => request.body.stream !== true).length;
  await Promise.all([stopService(titlesOff.child), stopService(titlesOn.child)]);
  await provider.close();
  await db.drop();

  const cpu = (v: Variant) => v.cpuMs / v.samples.length;
  const stmts = (v: Variant) => [...v.statements.values()].reduce((sum, n) => sum + n, 0) / v.samples.length;
  // Which statements a variant adds to the one before it, per turn (stderr).
  const added = (v: Variant, base: Variant) =>
    [...v.statements]
      .map(([text, n]) => [text, n / v.samples.length - (base.statements.get(text) ?? 0) / base.samples.length] as const)
      .filter(([, n]) => Math.abs(n) >= 0.05)
      .map(([text, n]) => `  ${n.toFixed(2)}  ${text}`);
  log(`Statements per turn a budget adds:\n${added(alerts, none).join('\n')}`);
  log(`Statements per turn enforcing it adds:\n${added(reserving, alerts).join('\n')}`);
  const row = (v: Variant, base: Variant) =>
    `| ${v.name} | ${v.samples.length} | ${f1(p(v.samples, 'firstMs', 50))} / ${f1(p(v.samples, 'firstMs', 99))} | ` +
    `${f1(p(v.samples, 'firstMs', 50) - p(base.samples, 'firstMs', 50))} | ${f1(p(v.samples, 'totalMs', 50))} | ${f2(cpu(v))} | ${f2(stmts(v))} |`;
  const header = [
    '| variant | turns | first text chunk p50 / p99 ms | first chunk p50 vs the first row ms | whole turn p50 ms | service CPU per turn ms | statements per turn |',
    '|---|---:|---|---:|---:|---:|---:|',
  ];
  const lines = [
    `Budget reservation per model call: text turns at c=1 (one model call each, titles off), ${ROUNDS} alternating rounds.`,
    '',
    ...header,
    row(none, none),
    row(alerts, none),
    row(reserving, none),
    '',
    `Added by the reservation per model call (enforced against not enforced): service CPU ${f2(cpu(reserving) - cpu(alerts))} ms, ` +
      `${f2(stmts(reserving) - stmts(alerts))} statements, first chunk p50 ${f1(p(reserving.samples, 'firstMs', 50) - p(alerts.samples, 'firstMs', 50))} ms, ` +
      `whole turn p50 ${f1(p(reserving.samples, 'totalMs', 50) - p(alerts.samples, 'totalMs', 50))} ms.`,
    `The statements alone (1,000 each, one after the other, from a pool in the bench process): reserve_usage p50 / p99 ` +
      `${f2(percentile(reserveMs, 50))} / ${f2(percentile(reserveMs, 99))} ms, settlement ${f2(percentile(settleMs, 50))} / ${f2(percentile(settleMs, 99))} ms.`,
    '',
    `Titles: new conversations at c=1, ${ROUNDS} rounds of the three variants in turn (title calls answered: ${titleCalls}).`,
    '',
    ...header,
    row(off, off),
    row(fast, off),
    row(slow, off),
  ];
  log(lines.join('\n'));
  return lines;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await measureMetering()).join('\n')}\n`);
  process.exit(0);
}
