export type Mix = 'large' | 'small';

/** `--mix`: `large` or `small`; throws on anything else. */
export function mixOf(value: string | undefined): Mix {
  if (value === 'large' || value === 'small') return value;
  throw new Error(`--mix must be large or small, not ${JSON.stringify(value)}`);
}

type Shape = (from: string, to: string) => string;

/** Endpoints and parameters each mix rotates through, with its window length in days. */
const MIXES: Record<Mix, { days: number; shapes: Shape[] }> = {
  // Big answers (an hourly series over 120 days is ~2,880 buckets) and small ones.
  large: {
    days: 120,
    shapes: [
      (from, to) => `time-series?from=${from}&to=${to}&granularity=hour&timezone=Asia%2FTokyo`,
      (from, to) => `time-series?from=${from}&to=${to}&granularity=day&groupBy=model`,
      (from, to) => `heatmap?from=${from}&to=${to}&timezone=Europe%2FBerlin`,
      (from, to) => `daily?from=${from}&to=${to}&timezone=America%2FNew_York`,
      (from, to) => `summary?from=${from}&to=${to}`,
      (from, to) => `model-efficiency?from=${from}&to=${to}`,
    ],
  },
  // The load: cheap distinct queries, many per second.
  small: {
    days: 7,
    shapes: [
      (from, to) => `summary?from=${from}&to=${to}`,
      (from, to) => `time-series?from=${from}&to=${to}&granularity=day`,
      (from, to) => `heatmap?from=${from}&to=${to}`,
      (from, to) => `by-agent?from=${from}&to=${to}`,
      (from, to) => `cache-savings?from=${from}&to=${to}`,
    ],
  },
};

const DAY_MS = 86_400_000;

/**
 * The `n`-th query of the soak: a path no earlier request used. The window ends at the start of
 * the current UTC day and starts the mix's days earlier minus `n` minutes (the demo data spans
 * 120 days), so every request is a new cache key of the same size class.
 */
export function distinctQuery(mix: Mix, n: number, now: Date): string {
  const { days, shapes } = MIXES[mix];
  const to = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const from = new Date(to - days * DAY_MS - Math.floor(n / shapes.length) * 60_000).toISOString();
  return `/api/ai/org-usage/${shapes[n % shapes.length]!(from, new Date(to).toISOString())}`;
}
