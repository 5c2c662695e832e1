/**
 * A sweep a server process runs every `intervalMs` (budgets, expired approvals): one at a time per
 * process (a tick that comes while a sweep still runs is skipped, so a slow database never piles
 * sweeps up), its failure logged and the next one run on the next tick; the timer never keeps the
 * process alive, and `stop` waits for a sweep under way.
 */
export class Sweeper {
  readonly #sweep: () => Promise<unknown>;
  readonly #onError: (error: unknown) => void;
  readonly #defaultIntervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #busy = false;

  constructor(sweep: () => Promise<unknown>, onError: (error: unknown) => void, defaultIntervalMs: number) {
    this.#sweep = sweep;
    this.#onError = onError;
    this.#defaultIntervalMs = defaultIntervalMs;
  }

  start(intervalMs = this.#defaultIntervalMs): void {
    this.#timer ??= setInterval(() => void this.tick(), intervalMs);
    this.#timer.unref();
  }

  /** Runs one sweep now, unless one still runs (then nothing: answers the running one). */
  tick(): Promise<unknown> {
    if (this.#busy) return this.#running;
    this.#busy = true;
    let sweep: Promise<unknown>;
    try {
      sweep = this.#sweep();
    } catch (error) {
      sweep = Promise.reject(error);
    }
    this.#running = sweep.catch(this.#onError).finally(() => {
      this.#busy = false;
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
