/**
 * The cost of what a chat turn checks and prepares before the model call since issue 39
 * (`npm run bench:chat:admission`): the enforced-budget check warm (within its 2 s) and cold
 * (after a usage write), the price-list check, and the context window over a 64,000-token history
 * counted cold (first turn after a start) and warm (the next turn: one new message). A fresh test
 * database with the demo seed (120 days of usage); one process, nothing else running.
 */
import { performance } from 'node:perf_hooks';
import type { ModelMessage } from 'ai';
import { checkBudgetBeforeTurn, spendChanged } from '../../app/analytics/budget/checker.ts';
import { fitContext } from '../../app/chat/context-window.ts';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { isModelPriced } from '../../sql/model-pricing.ts';
import { findBudget, findSpendOfDays, upsertBudget } from '../../sql/usage-budgets.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
async function time(rounds: number, run: () => unknown): Promise<number> {
  const took: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await run();
    took.push(performance.now() - start);
  }
  return median(took);
}

const db = await createTestDatabase();
try {
  await seedDemo(db.pool);
  const organizationId = ORGANIZATIONS.demoAgency.id;
  await upsertBudget(db.pool, { organizationId, monthlyLimitUsd: 1e9, alertThresholdsPct: [100], enforce: true, now: new Date() });
  const deps = { db: db.pool, clock: () => new Date() };
  await checkBudgetBeforeTurn(deps, organizationId);
  const rows: [string, number][] = [];
  rows.push(['budget check, warm (a read under 2 s old)', await time(ROUNDS * 10, () => checkBudgetBeforeTurn(deps, organizationId))]);
  rows.push([
    'budget check, cold (after a usage write: budget + month total)',
    await time(ROUNDS, () => {
      spendChanged(db.pool, organizationId);
      return checkBudgetBeforeTurn(deps, organizationId);
    }),
  ]);
  const month = [new Date(Date.UTC(2026, 10, 1)), new Date(Date.UTC(2026, 11, 1))] as const;
  rows.push(['  of which: the budget read', await time(ROUNDS, () => findBudget(db.pool, organizationId))]);
  rows.push(['  of which: the month total (day rollup)', await time(ROUNDS, () => findSpendOfDays(db.pool, organizationId, ...month))]);
  rows.push(['price-list check (one primary-key read)', await time(ROUNDS, () => isModelPriced(db.pool, 'openai/gpt-4o-mini'))]);

  const sentence = 'The customer asked whether the premium plan includes priority support, and how long a refund takes. ';
  const history: ModelMessage[] = Array.from({ length: 400 }, (_, i) =>
    i % 2 === 0 ? { role: 'user', content: `${i}: ${sentence.repeat(6)}` } : { role: 'assistant', content: `${i}: ${sentence.repeat(12)}` },
  );
  const window = { maxTokens: 64_000, system: 'You are the Support Assistant.', toolCount: 3 };
  let start = performance.now();
  const sent = fitContext(history, window);
  rows.push([`context window cold: ${history.length} messages, ${sent.length} sent`, performance.now() - start]);
  history.push({ role: 'user', content: `new: ${sentence}` });
  start = performance.now();
  fitContext(history, window);
  rows.push(['context window warm: the same plus one new message', performance.now() - start]);

  console.log('| step | ms (median) |\n|---|---:|');
  for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(3)} |`);
} finally {
  await db.drop();
}
