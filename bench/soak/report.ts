import { EXPECTED, type Sample } from './load.ts';

/** One window of the run: what the load saw and where the service and its stores stood. */
export type WindowRow = {
  window: number;
  /** End of the window, seconds since the paced load began. */
  endSeconds: number;
  requests: number;
  /** Answers outside a kind's expected statuses, no answer included (429 on a limited route is expected). */
  errors: number;
  fiveXx: number;
  p50Ms: number;
  p99Ms: number;
  /** Mean of the service's RSS read every 5 s during the window. */
  rssMb: number;
  heapUsedMb: number;
  /** Highest event-loop delay p99 among the 5 s readings of the window. */
  loopP99Ms: number;
  /** Backends of the bench database (pg_stat_activity), at the end of the window. */
  pgConnections: number;
  /** used_memory of the Redis server (all of its databases), at the end of the window. */
  redisMb: number;
  /** Keys in the bench's Redis database. */
  redisKeys: number;
};

export type Reading = { rssBytes: number; heapUsedBytes: number; loopDelayP99Ms: number };

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

export function isError(sample: Sample): boolean {
  return !(EXPECTED[sample.kind] ?? []).includes(sample.status);
}

export function windowRow(
  window: number,
  endSeconds: number,
  samples: Sample[],
  readings: Reading[],
  stores: { pgConnections: number; redisUsedBytes: number; redisKeys: number },
): WindowRow {
  const latencies = samples.map((sample) => sample.latencyMs);
  return {
    window,
    endSeconds,
    requests: samples.length,
    errors: samples.filter(isError).length,
    fiveXx: samples.filter((sample) => sample.status >= 500).length,
    p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    rssMb: mb(mean(readings.map((reading) => reading.rssBytes))),
    heapUsedMb: mb(mean(readings.map((reading) => reading.heapUsedBytes))),
    loopP99Ms: Math.round(Math.max(0, ...readings.map((reading) => reading.loopDelayP99Ms)) * 10) / 10,
    pgConnections: stores.pgConnections,
    redisMb: mb(stores.redisUsedBytes),
    redisKeys: stores.redisKeys,
  };
}

const COLUMNS: [keyof WindowRow, string][] = [
  ['window', 'window'],
  ['endSeconds', 'end s'],
  ['requests', 'requests'],
  ['errors', 'errors'],
  ['fiveXx', '5xx'],
  ['p50Ms', 'p50 ms'],
  ['p99Ms', 'p99 ms'],
  ['rssMb', 'RSS MB'],
  ['heapUsedMb', 'heap used MB'],
  ['loopP99Ms', 'loop delay p99 ms'],
  ['pgConnections', 'PG conns'],
  ['redisMb', 'Redis used MB'],
  ['redisKeys', 'Redis keys'],
];

export const tableHeader = () => [`| ${COLUMNS.map(([, title]) => title).join(' | ')} |`, `|${COLUMNS.map(() => '---:').join('|')}|`];
export const tableLine = (row: WindowRow) => `| ${COLUMNS.map(([key]) => row[key]).join(' | ')} |`;

export type Check = { name: string; ok: boolean; detail: string };

/**
 * The pass conditions. "After the first 10 minutes" of a 60-minute run is read as the first sixth
 * of any run: the baseline is the first window ending at or after `totalSeconds / 6` (the second
 * 5-minute window of an hour, the first 30 s window of 3 minutes); RSS of the last window may
 * exceed it by at most 10 %.
 */
export function checks(rows: WindowRow[], totalSeconds: number, samples: { fiveXx: number; noAnswer: number }): Check[] {
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const baseline = rows.find((row) => row.endSeconds >= totalSeconds / 6) ?? first;
  const growth = baseline.rssMb > 0 ? (last.rssMb - baseline.rssMb) / baseline.rssMb : 0;
  return [
    {
      name: 'RSS after the warm-up grows at most 10 %',
      ok: growth <= 0.1,
      detail: `window ${baseline.window} (to ${baseline.endSeconds} s) ${baseline.rssMb} MB -> last window ${last.rssMb} MB (${(growth * 100).toFixed(1)} %)`,
    },
    {
      name: "p99 of the last window at most 2x the first window's",
      ok: last.p99Ms <= 2 * first.p99Ms,
      detail: `${first.p99Ms} ms -> ${last.p99Ms} ms (${(last.p99Ms / Math.max(first.p99Ms, 0.001)).toFixed(2)}x)`,
    },
    { name: 'no 5xx', ok: samples.fiveXx === 0, detail: `${samples.fiveXx} answers 5xx` },
    { name: 'every request answered', ok: samples.noAnswer === 0, detail: `${samples.noAnswer} without an answer within 10 s` },
  ];
}

/** Answers by kind and status over the whole soak, for the summary under the table. */
export class StatusTally {
  private readonly counts = new Map<string, Map<number, number>>();
  add(sample: Sample): void {
    const byStatus = this.counts.get(sample.kind) ?? new Map<number, number>();
    byStatus.set(sample.status, (byStatus.get(sample.status) ?? 0) + 1);
    this.counts.set(sample.kind, byStatus);
  }
  lines(): string[] {
    return [...this.counts].map(
      ([kind, byStatus]) =>
        `  ${kind}: ${[...byStatus].map(([status, count]) => `${status === 0 ? 'no answer' : status} x ${count}`).join(', ')}`,
    );
  }
}
