import type { Fault } from './faults.ts';
import type { Sample } from './load.ts';

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const latency = (s: Sample) => s.endMs - s.startMs;
const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Status classes of the per-second table. */
function classOf(s: Sample): '2xx' | '4xx' | '429' | '503' | 'other5xx' | 'none' {
  if (s.status === 0) return 'none';
  if (s.status === 429) return '429';
  if (s.status === 503) return '503';
  if (s.status >= 500) return 'other5xx';
  if (s.status >= 400) return '4xx';
  return '2xx';
}

/** One line per second of the run (by the second a request ended): counts by status class and latency. */
export function perSecondTable(samples: Sample[], faults: Fault[], origin: number): string[] {
  const lines = [
    '   s |   2xx |   4xx |   429 |   503 | 5xx other | none | p50 ms | p99 ms | max ms | fault',
    '-----|-------|-------|-------|-------|-----------|------|--------|--------|--------|------',
  ];
  const bySecond = new Map<number, Sample[]>();
  for (const s of samples) {
    const second = Math.floor((s.endMs - origin) / 1000);
    bySecond.set(second, [...(bySecond.get(second) ?? []), s]);
  }
  for (const second of [...bySecond.keys()].sort((a, b) => a - b)) {
    const group = bySecond.get(second)!;
    const count = (c: ReturnType<typeof classOf>) => group.filter((s) => classOf(s) === c).length;
    const sorted = group.map(latency).sort((a, b) => a - b);
    const from = origin + second * 1000;
    const active = faults.filter((f) => f.startMs < from + 1000 && f.endMs >= from).map((f) => f.name.split(' (')[0]);
    lines.push(
      [
        pad(second, 4),
        pad(count('2xx'), 5),
        pad(count('4xx'), 5),
        pad(count('429'), 5),
        pad(count('503'), 5),
        pad(count('other5xx'), 9),
        pad(count('none'), 4),
        pad(percentile(sorted, 50).toFixed(1), 6),
        pad(percentile(sorted, 99).toFixed(1), 6),
        pad(sorted.at(-1)!.toFixed(0), 6),
        ` ${[...new Set(active)].join(', ')}`,
      ].join(' | '),
    );
  }
  return lines;
}

/** Latency percentiles per request kind over the whole run. */
export function latencyTable(samples: Sample[]): string[] {
  const lines = [
    'kind          | requests |  p50 ms |  p95 ms |  p99 ms |  max ms',
    '--------------|----------|---------|---------|---------|--------',
  ];
  const kinds = [...new Set(samples.map((s) => s.kind))].sort();
  for (const kind of [...kinds, 'all']) {
    const group = kind === 'all' ? samples : samples.filter((s) => s.kind === kind);
    const sorted = group.map(latency).sort((a, b) => a - b);
    lines.push(
      `${kind.padEnd(13)} | ${pad(group.length, 8)} | ${pad(percentile(sorted, 50).toFixed(1), 7)} | ${pad(percentile(sorted, 95).toFixed(1), 7)} | ${pad(percentile(sorted, 99).toFixed(1), 7)} | ${pad(sorted.at(-1)!.toFixed(0), 6)}`,
    );
  }
  return lines;
}

/**
 * How long a request took beyond the faults it overlapped: the time from the later of its start
 * and the end of the last fault that began before it ended, to its end.
 */
export function stallBeyondFault(s: Sample, faults: Fault[]): number {
  let from = s.startMs;
  for (const f of faults) if (f.startMs <= s.endMs && f.endMs > from) from = Math.min(f.endMs, s.endMs);
  return s.endMs - from;
}

export type Check = { name: string; ok: boolean; detail: string };

/** The checks on the samples alone (the database and Redis checks are made by run.ts). */
export function sampleChecks(samples: Sample[], faults: Fault[]): Check[] {
  const fiveHundreds = samples.filter((s) => s.status >= 500);
  const undocumented = fiveHundreds.filter(
    (s) => !(s.status === 503 && s.errorCode === 'CORE.SERVICE_UNAVAILABLE' && s.retryAfter === '1'),
  );
  const unanswered = samples.filter((s) => s.status === 0);
  const stalls = samples.map((s) => ({ s, stall: stallBeyondFault(s, faults) })).sort((a, b) => b.stall - a.stall);
  const worst = stalls[0];
  return [
    {
      name: 'no 5xx but documented 503s (CORE.SERVICE_UNAVAILABLE with Retry-After)',
      ok: undocumented.length === 0,
      detail: `${fiveHundreds.length} 5xx, ${undocumented.length} undocumented${undocumented[0] ? ` (first: ${undocumented[0].kind} ${undocumented[0].status})` : ''}`,
    },
    { name: 'every request answered', ok: unanswered.length === 0, detail: `${unanswered.length} without an answer` },
    {
      name: 'no request stalled more than 1 s beyond a fault',
      ok: !worst || worst.stall <= 1000,
      detail: worst
        ? `worst ${worst.stall.toFixed(0)} ms beyond (${worst.s.kind}, ${latency(worst.s).toFixed(0)} ms in all)`
        : 'no samples',
    },
  ];
}
