/**
 * How many knowledge searches of one key (an organization) run at once in this process: at most
 * `running`, the next ones wait in order, at most `waiting` of them; one more is refused at once
 * (SearchSlotsFull). A search that stops waiting (its signal aborts) leaves the queue. A key's
 * state is dropped when nothing runs or waits for it, so the map holds busy keys only.
 */
export class SearchSlots {
  readonly #keys = new Map<string, { running: number; queue: (() => void)[] }>();
  readonly running: number;
  readonly waiting: number;
  constructor(running: number, waiting: number) {
    this.running = running;
    this.waiting = waiting;
  }

  /** Resolves with the release of a slot once one is free; rejects with SearchSlotsFull, or with the signal's reason. */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let state = this.#keys.get(key);
    if (!state) this.#keys.set(key, (state = { running: 0, queue: [] }));
    if (state.running < this.running) {
      state.running += 1;
      return this.#release(key, state);
    }
    if (state.queue.length >= this.waiting) throw new SearchSlotsFull();
    const queued = state;
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        queued.queue.splice(queued.queue.indexOf(wake), 1);
        this.#drop(key, queued);
        reject(signal!.reason);
      };
      queued.queue.push(wake);
      signal?.addEventListener('abort', leave, { once: true });
    });
    // The slot was handed over by a release: `running` already counts it.
    return this.#release(key, queued);
  }

  #release(key: string, state: { running: number; queue: (() => void)[] }) {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.queue.shift();
      if (next) return next();
      state.running -= 1;
      this.#drop(key, state);
    };
  }

  #drop(key: string, state: { running: number; queue: (() => void)[] }) {
    if (state.running === 0 && state.queue.length === 0 && this.#keys.get(key) === state) this.#keys.delete(key);
  }

  /** Keys with a search running or waiting (for tests: the map does not grow with idle keys). */
  get busyKeys(): number {
    return this.#keys.size;
  }
}

/** Refused: the key already has its searches running and its queue full. */
export class SearchSlotsFull extends Error {
  override name = 'SearchSlotsFull';
  constructor() {
    super("The knowledge base is busy with this organization's other searches. Try again in a moment.");
  }
}
