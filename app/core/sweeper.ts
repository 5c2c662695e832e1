/**
 * A sweep a server process runs every `intervalMs` (budgets, expired approvals): one at a time per
 * process, its failure logged and the next one run on time; the timer never keeps the process
 * alive, and `stop` waits for a sweep under way.
 */
export class Sweeper {
  readonly #sweep: () => Promise<unknown>;
  readonly #onError: (error: unknown) => void;
  readonly #defaultIntervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(sweep: () => Promise<unknown>, onError: (error: unknown) => void, defaultIntervalMs: number) {
    this.#sweep = sweep;
    this.#onError = onError;
    this.#defaultIntervalMs = defaultIntervalMs;
  }

  start(intervalMs = this.#defaultIntervalMs): void {
    this.#timer ??= setInterval(() => {
      this.#running = this.#sweep().catch(this.#onError);
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
