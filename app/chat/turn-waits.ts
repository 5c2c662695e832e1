import type { Timers } from '../core/deps.ts';

/** How often a resumed stream checks that its turn still runs (a producer that died sends no end). */
const RESUME_CHECK_MS = 5_000;

/**
 * Runs `run` every `ms` on `timers` (the app's: a test fires them), each run awaited before the
 * next is armed, until the returned stop is called.
 */
export function every(timers: Timers, ms: number, run: () => Promise<void>): () => void {
  let stopped = false;
  let timer: unknown;
  const arm = () => {
    timer = timers.setTimeout(() => {
      void run()
        .catch(() => {})
        .finally(() => {
          if (!stopped) arm();
        });
    }, ms);
  };
  arm();
  return () => {
    stopped = true;
    timers.clearTimeout(timer);
  };
}

/** A resumed stream, ended if its turn stops running without the producer saying so (its instance died). */
export async function* whileRunning(timers: Timers, stream: ReadableStream<string>, ended: () => Promise<boolean>): AsyncGenerator<string> {
  const reader = stream.getReader();
  let seen = 0;
  const stop = every(timers, RESUME_CHECK_MS, async () => {
    if (!(await ended().catch(() => false))) return;
    if (++seen >= 2) void reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    stop();
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
