import test from 'ava';
import { checkBudgetBeforeTurn, usageWritten } from '../../app/analytics/budget/checker.ts';
import { mustSettle } from '../../app/metering/meter.ts';

// The turn's budget gate (app/analytics/budget/checker.ts) over a stand-in pool that counts its
// reads: what one usage write of this process does to the read it keeps.
const ORGANIZATION = '01900000-0000-7000-8000-000000000201';

function gate(limits: { budgetEnforced: boolean | null; budgetLimitUsd: number | null; spentUsd: number | null }) {
  const db = {
    reads: 0,
    one: async () => {
      db.reads += 1;
      return { planLimitUsd: null, ...limits };
    },
  };
  const deps = { db: db as never, clock: () => new Date('2026-12-02T08:00:00Z') };
  return {
    db,
    check: () => checkBudgetBeforeTurn(deps, ORGANIZATION),
    written: (write?: { costUsd: number; startedAt: number }) => usageWritten(db, ORGANIZATION, write),
  };
}

test('a usage write sent after the gate read its spend adds its cost: the next turn is refused 402 without reading again', async (t) => {
  const { db, check, written } = gate({ budgetEnforced: true, budgetLimitUsd: 1, spentUsd: 0.6 });
  await check();
  written({ costUsd: 0.3, startedAt: performance.now() });
  await check();
  t.is(db.reads, 1);
  written({ costUsd: 0.1, startedAt: performance.now() });
  const refused = await t.throwsAsync(check());
  t.like(refused, { errorCode: 'AI.BUDGET_EXCEEDED' });
  t.regex(refused!.message, /\$1\.00 spent this month of a \$1\.00 limit/);
  t.is(db.reads, 1);
});

test('a usage write sent before the gate read answered, or of unknown cost, makes the next turn read the stored spend', async (t) => {
  const { db, check, written } = gate({ budgetEnforced: true, budgetLimitUsd: 1, spentUsd: 0.6 });
  const sentBefore = performance.now();
  await check();
  // Its snapshot may or may not hold the write: adding the cost could count it twice.
  written({ costUsd: 0.3, startedAt: sentBefore });
  await check();
  t.is(db.reads, 2);
  written();
  await check();
  t.is(db.reads, 3);
});

test('without an enforced budget a usage write keeps the read: spend alone cannot refuse a turn', async (t) => {
  const { db, check, written } = gate({ budgetEnforced: false, budgetLimitUsd: 1, spentUsd: null });
  await check();
  written({ costUsd: 5, startedAt: performance.now() });
  written();
  await check();
  t.is(db.reads, 1);
});

test("a call's reservation is settled at once only when the report passes its worst case or the turn goes on with tools", (t) => {
  const worst = { inputTokens: 200, outputTokens: 100 };
  const stop = { unified: 'stop' as const, raw: 'stop' };
  t.false(mustSettle(worst, { inputTokens: 150, cacheReadTokens: 50, outputTokens: 100 }, stop));
  t.true(mustSettle(worst, { inputTokens: 150, cacheReadTokens: 51, outputTokens: 10 }, stop));
  t.true(mustSettle(worst, { inputTokens: 201, cacheReadTokens: 0, outputTokens: 10 }, stop));
  t.true(mustSettle(worst, { inputTokens: 10, cacheReadTokens: 0, outputTokens: 101 }, stop));
  t.true(mustSettle(worst, { inputTokens: 10, cacheReadTokens: 0, outputTokens: 10 }, { unified: 'tool-calls', raw: 'tool_calls' }));
});
