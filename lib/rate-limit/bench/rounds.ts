// Interleaved rounds: every contender runs once per round, in rotating order, so a slow spell of a shared
// host hits all of them alike; ratios are taken within a round, then summarised (median, quartiles).
import { measure, measureThroughput, type Measurement } from './measure.ts';

export interface Contender {
  readonly name: string;
  readonly op: (i: number) => Promise<unknown>;
}

export interface RoundsResult {
  readonly name: string;
  /** Median checks/s over the rounds. */
  readonly opsPerSec: number;
  /** Median p99 latency, ms (0 for the in-process loop). */
  readonly p99Ms: number;
  /** Quartiles of the per-round ratio first-contender / this one. */
  readonly ratio: { readonly q25: number; readonly median: number; readonly q75: number };
}

export function quartiles(values: readonly number[]): { q25: number; median: number; q75: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const position = (sorted.length - 1) * q;
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (position - low);
  };
  return { q25: at(0.25), median: at(0.5), q75: at(0.75) };
}

/**
 * Runs `rounds` rounds of `ms` per contender at `concurrency` (0: the in-process loop, awaited one by one),
 * after one short warm-up each (JIT, connections, script cache). The first contender is "ours".
 */
export async function interleaved(
  contenders: readonly Contender[],
  { rounds, ms, concurrency }: { rounds: number; ms: number; concurrency: number },
): Promise<RoundsResult[]> {
  const run = async (c: Contender, warm: boolean): Promise<Measurement> => {
    if (concurrency === 0) {
      const opsPerSec = await measureThroughput(c.op, { maxOps: 50_000_000, maxMs: warm ? 200 : ms });
      return { ops: 0, opsPerSec, p50Ms: 0, p99Ms: 0 };
    }
    return measure(c.op, { concurrency, maxOps: 3_000_000, maxMs: warm ? 300 : ms, warmupOps: 0 });
  };
  for (const c of contenders) await run(c, true);
  const samples = contenders.map(() => [] as Measurement[]);
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => i);
    // Rotate, and reverse every other round (ABC, CBA, BCA, ACB, ...): no contender always runs first or last.
    for (let r = 0; r < round % order.length; r++) order.push(order.shift() as number);
    if (round % 2 === 1) order.reverse();
    for (const i of order) samples[i]?.push(await run(contenders[i] as Contender, false));
  }
  const ours = samples[0] as Measurement[];
  return contenders.map((c, i) => {
    const mine = samples[i] as Measurement[];
    return {
      name: c.name,
      opsPerSec: quartiles(mine.map((m) => m.opsPerSec)).median,
      p99Ms: quartiles(mine.map((m) => m.p99Ms)).median,
      ratio: quartiles(mine.map((m, r) => (ours[r] as Measurement).opsPerSec / m.opsPerSec)),
    };
  });
}
