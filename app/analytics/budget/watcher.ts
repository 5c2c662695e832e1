import { Sweeper } from '../../core/sweeper.ts';
import { sweepBudgets, type BudgetCheckDeps } from './checker.ts';

/** How often every budget is checked, whatever the writes: an alert leaves within this time. */
export const BUDGET_SWEEP_INTERVAL_MS = 60_000;

/** The once-a-minute budget sweep of a server process (one sweep at a time across processes). */
export class BudgetWatcher extends Sweeper {
  constructor(deps: BudgetCheckDeps) {
    super(
      () => sweepBudgets(deps),
      (error) => deps.logger.warn({ err: error }, 'budget sweep failed'),
      BUDGET_SWEEP_INTERVAL_MS,
    );
  }
}
