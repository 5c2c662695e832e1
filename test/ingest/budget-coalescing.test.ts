import test from 'ava';
import { pino } from 'pino';
import type { DatabasePool } from 'slonik';
import { afterUsageWritten, type BudgetCheckDeps } from '../../app/analytics/budget/checker.ts';
import { testConfig } from '../helpers/app.ts';

/** A pool whose budget lookup takes a while and finds none, counting the lookups. */
function slowPool() {
  const pool = {
    lookups: 0,
    pending: [] as (() => void)[],
    /** Answers every lookup in flight. */
    release: () => pool.pending.splice(0).forEach((resolve) => resolve()),
    maybeOne: () => {
      pool.lookups += 1;
      return new Promise((resolve) => pool.pending.push(() => resolve(null)));
    },
  };
  return pool;
}

const depsOf = (pool: ReturnType<typeof slowPool>): BudgetCheckDeps => ({
  db: pool as unknown as DatabasePool,
  clock: () => new Date(),
  config: testConfig(),
  logger: pino({ level: 'silent' }),
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('writes that finish while a check of their organization runs share one check that starts after it', async (t) => {
  const pool = slowPool();
  const deps = depsOf(pool);
  const first = afterUsageWritten(deps, 'org-a');
  const others = Array.from({ length: 7 }, () => afterUsageWritten(deps, 'org-a'));
  await turn();
  t.is(pool.lookups, 1);
  pool.release();
  await first;
  await turn();
  t.is(pool.lookups, 2, 'one more check for the seven writes that finished during the first');
  pool.release();
  await Promise.all(others);
  const later = afterUsageWritten(deps, 'org-a');
  await turn();
  t.is(pool.lookups, 3, 'a write after both checks gets its own');
  pool.release();
  await later;
});

test('organizations and pools are checked independently', async (t) => {
  const pool = slowPool();
  const other = slowPool();
  const checks = [
    afterUsageWritten(depsOf(pool), 'org-a'),
    afterUsageWritten(depsOf(pool), 'org-b'),
    afterUsageWritten(depsOf(other), 'org-a'),
  ];
  await turn();
  t.is(pool.lookups, 2);
  t.is(other.lookups, 1);
  pool.release();
  other.release();
  await Promise.all(checks);
});
