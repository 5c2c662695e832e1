import { sweepBudgets, type BudgetCheckDeps } from './checker.ts';

/** How often every budget is checked, whatever the writes: an alert leaves within this time. */
export const BUDGET_SWEEP_INTERVAL_MS = 60_000;

/** The once-a-minute budget sweep of a server process (one sweep at a time across processes). */
export class BudgetWatcher {
  readonly #deps: BudgetCheckDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(deps: BudgetCheckDeps) {
    this.#deps = deps;
  }

  start(intervalMs = BUDGET_SWEEP_INTERVAL_MS): void {
    this.#timer ??= setInterval(() => {
      this.#running = sweepBudgets(this.#deps).catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'budget sweep failed'));
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
