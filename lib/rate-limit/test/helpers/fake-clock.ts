/** A settable clock for exact, instant time travel. */
export class FakeClock {
  #ms: number;
  constructor(startMs = 1_700_000_000_000) {
    this.#ms = startMs;
  }
  /** Bound so it can be passed as a `now` option. */
  readonly now = (): number => this.#ms;
  advance(ms: number): void {
    this.#ms += ms;
  }
}
