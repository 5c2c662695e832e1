import { StoreTimeoutError } from './errors.ts';

interface Pending {
  readonly deadline: number;
  readonly reject: (error: unknown) => void;
  settled: boolean;
}

/**
 * Per-call timeouts without a timer per call.
 *
 * Invariants:
 * - every call waits the same `timeoutMs`, so deadlines are non-decreasing in `#queue` order (a FIFO, not a heap);
 * - at most one timer exists, armed for the oldest entry not yet known to be settled; it keeps the process
 *   alive only while calls are pending (and at most `timeoutMs` after the last one);
 * - settled entries are dropped lazily when the timer fires, so a call costs O(1) and no allocation besides its entry.
 * A call that loses the race keeps its handlers, so a late rejection is never unhandled.
 */
export class TimeoutQueue {
  readonly #timeoutMs: number;
  #queue: Pending[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `timeoutMs` <= 0 or non-finite disables timeouts. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs > 0 && Number.isFinite(timeoutMs) ? timeoutMs : 0;
  }

  /** Settles with `promise`, or rejects with {@link StoreTimeoutError} once `timeoutMs` has passed. */
  run<T>(promise: Promise<T>): Promise<T> {
    if (this.#timeoutMs === 0) return promise;
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { deadline: performance.now() + this.#timeoutMs, reject, settled: false };
      this.#queue.push(entry);
      if (this.#timer === undefined) this.#arm(this.#timeoutMs);
      promise.then(
        (value) => {
          if (entry.settled) return;
          entry.settled = true;
          resolve(value);
        },
        (error: unknown) => {
          if (entry.settled) return;
          entry.settled = true;
          reject(error);
        },
      );
    });
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(this.#expire, Math.max(1, Math.ceil(delayMs)));
  }

  readonly #expire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    const queue = this.#queue;
    let head = this.#head;
    for (; head < queue.length; head++) {
      const entry = queue[head] as Pending;
      if (entry.settled) continue;
      if (entry.deadline > now) break;
      entry.settled = true;
      entry.reject(new StoreTimeoutError(this.#timeoutMs));
    }
    if (head === queue.length) {
      this.#queue = [];
      head = 0;
    } else if (head > 1_024) {
      this.#queue = queue.slice(head);
      head = 0;
    }
    this.#head = head;
    const next = this.#queue[head];
    if (next !== undefined) this.#arm(next.deadline - now);
  };
}
