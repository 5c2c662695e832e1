/**
 * The server-sent events of one running turn, kept from its first chunk: the turn appends, and
 * any number of readers (the POST that started it, the resumable layer) read from the start, then
 * live, until it closes. Readers only read: one that goes away never slows or stops the turn.
 */
export class TurnTape {
  #events: string[] = [];
  #closed = false;
  #waiting: (() => void)[] = [];

  push(event: string): void {
    if (this.#closed) return;
    this.#events.push(event);
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  async *read(): AsyncGenerator<string> {
    let next = 0;
    for (;;) {
      while (next < this.#events.length) yield this.#events[next++]!;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** `read()` as a web stream (what the resumable layer takes). */
  stream(): ReadableStream<string> {
    const events = this.read();
    return new ReadableStream<string>({
      async pull(controller) {
        const { done, value } = await events.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await events.return(undefined);
      },
    });
  }

  #wake() {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
