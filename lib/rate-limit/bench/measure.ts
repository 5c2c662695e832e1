// Bounded load loops: a fixed number of operations, cut short by a time budget, at a given concurrency.

export interface Measurement {
  readonly ops: number;
  readonly opsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Runs `op(i)` with `concurrency` workers until `maxOps` operations or `maxMs` elapsed, whichever comes first.
 * Latency is per operation (start to settle), measured with performance.now().
 */
export async function measure(
  op: (i: number) => Promise<unknown>,
  { concurrency, maxOps, maxMs, warmupOps = 500 }: { concurrency: number; maxOps: number; maxMs: number; warmupOps?: number },
): Promise<Measurement> {
  for (let i = 0; i < warmupOps; i++) await op(-1 - i);
  const latencies = new Float64Array(maxOps);
  let next = 0;
  let done = 0;
  const started = performance.now();
  const deadline = started + maxMs;
  const worker = async (): Promise<void> => {
    while (next < maxOps && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      await op(i);
      latencies[done++] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - started;
  const sorted = latencies.subarray(0, done).sort();
  return {
    ops: done,
    opsPerSec: (done / elapsedMs) * 1000,
    p50Ms: sorted[Math.floor(done * 0.5)] ?? 0,
    p99Ms: sorted[Math.min(done - 1, Math.floor(done * 0.99))] ?? 0,
  };
}

/** Tight loop for synchronous-speed stores: throughput only (per-op timing would dominate). */
export async function measureThroughput(
  op: (i: number) => Promise<unknown>,
  { maxOps, maxMs }: { maxOps: number; maxMs: number },
): Promise<number> {
  for (let i = 0; i < 10_000; i++) await op(i);
  const started = performance.now();
  let i = 0;
  while (i < maxOps) {
    // Check the clock every 10 000 operations only.
    for (const end = i + 10_000; i < end; i++) await op(i);
    if (performance.now() - started > maxMs) break;
  }
  return (i / (performance.now() - started)) * 1000;
}
