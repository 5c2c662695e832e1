import type { Timers } from '../core/deps.ts';

/** How often a resumed stream checks that its turn still runs (a producer that died sends no end). */
const RESUME_CHECK_MS = 5_000;

/** A resumed stream, ended if its turn stops running without the producer saying so (its instance died). */
export async function* whileRunning(stream: ReadableStream<string>, ended: () => Promise<boolean>): AsyncGenerator<string> {
  const reader = stream.getReader();
  let seen = 0;
  const check = setInterval(async () => {
    if (!(await ended().catch(() => false))) return;
    if (++seen >= 2) void reader.cancel().catch(() => {});
  }, RESUME_CHECK_MS).unref();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    clearInterval(check);
    void reader.cancel().catch(() => {});
  }
}

/** Waits for `promise` (its failure ignored), at most `ms` on `timers` (the app's: a test fires them); no timer outlives the wait. */
export async function within(timers: Timers, promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: unknown;
  await Promise.race([promise?.catch(() => {}), new Promise<void>((resolve) => (timer = timers.setTimeout(resolve, ms)))]);
  timers.clearTimeout(timer);
}

/** Resolves after `ms` on `timers`. */
export const pause = (timers: Timers, ms: number) => new Promise<void>((resolve) => timers.setTimeout(resolve, ms));
