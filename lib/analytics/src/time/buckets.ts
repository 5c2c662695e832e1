/**
 * Dense, time-zone-aware bucket sequences for charts and GROUP BY alignment.
 *
 * Bucket starts are UTC instants at which a local calendar unit begins in the IANA zone:
 *   hour  – each local HH:00 (see ./local-hour.ts for DST and :30/:45 zones);
 *   day   – local midnight (or the first existing instant of the day if midnight is skipped),
 *           so DST days last 23 or 25 hours;
 *   week  – Monday 00:00 local (ISO 8601 weeks);
 *   month – the 1st at 00:00 local.
 * Day/week/month use date-fns on a `TZDate` (wall-clock arithmetic in the zone), re-floored after
 * each step so a skipped midnight cannot shift later buckets; every step is checked to be strictly
 * increasing, so iteration always terminates.
 */
import { TZDate } from '@date-fns/tz';
// One subpath a function: the package's index loads its ~250 modules, and Node re-reads its 199 kB
// package.json for each (3 s of every process's start on a 2-core host).
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { addWeeks } from 'date-fns/addWeeks';
import { startOfDay } from 'date-fns/startOfDay';
import { startOfMonth } from 'date-fns/startOfMonth';
import { startOfWeek } from 'date-fns/startOfWeek';
import type { Granularity } from './granularity.ts';
import { nextLocalHourStart, startOfLocalHour } from './local-hour.ts';
import { assertTimeZone } from './time-zone.ts';

/** Options of {@link bucketStarts} and {@link countBuckets}. */
export interface BucketOptions {
  /** Window start (inclusive); the first bucket is the one containing it. */
  readonly from: Date;
  /** Window end (exclusive); only buckets starting strictly before it are produced. */
  readonly to: Date;
  /** Bucket width. */
  readonly granularity: Granularity;
  /** IANA time zone in which buckets are aligned. Default 'UTC'. */
  readonly timeZone?: string;
}

const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week', 'month'];

/** Start (epoch ms) of the bucket containing `ms`. */
export function bucketStartOf(ms: number, granularity: Granularity, timeZone: string): number {
  if (granularity === 'hour') return startOfLocalHour(timeZone, ms);
  const local = new TZDate(ms, timeZone);
  switch (granularity) {
    case 'day':
      return startOfDay(local).getTime();
    case 'week':
      return startOfWeek(local, { weekStartsOn: 1 }).getTime();
    case 'month':
      return startOfMonth(local).getTime();
  }
}

/** Start (epoch ms) of the bucket after the one starting at `start`; always > `start`. */
export function nextBucketStart(start: number, granularity: Granularity, timeZone: string): number {
  if (granularity === 'hour') return nextLocalHourStart(timeZone, start);
  const local = new TZDate(start, timeZone);
  for (let units = 1; units <= 3; units++) {
    let next: number;
    switch (granularity) {
      case 'day':
        next = startOfDay(addDays(local, units)).getTime();
        break;
      case 'week':
        next = startOfWeek(addWeeks(local, units), { weekStartsOn: 1 }).getTime();
        break;
      case 'month':
        next = startOfMonth(addMonths(local, units)).getTime();
        break;
    }
    if (next > start) return next;
  }
  throw new RangeError(`no ${granularity} bucket after ${new Date(start).toISOString()} in ${timeZone}`);
}

interface ValidWindow {
  readonly fromMs: number;
  readonly toMs: number;
  readonly granularity: Granularity;
  readonly timeZone: string;
}

function validate(options: BucketOptions): ValidWindow {
  const { from, to, granularity, timeZone = 'UTC' } = options;
  const fromMs = from instanceof Date ? from.getTime() : Number.NaN;
  const toMs = to instanceof Date ? to.getTime() : Number.NaN;
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMs)) {
    throw new RangeError('bucket windows need valid Date values for from and to');
  }
  if (!GRANULARITIES.includes(granularity)) {
    throw new RangeError(`unknown granularity: ${JSON.stringify(granularity)}`);
  }
  assertTimeZone(timeZone);
  return { fromMs, toMs, granularity, timeZone };
}

/** Yields bucket starts (epoch ms) from the bucket containing `from` while start < `to`. */
function* iterateStarts(w: ValidWindow): Generator<number> {
  if (w.toMs <= w.fromMs) return;
  for (let s = bucketStartOf(w.fromMs, w.granularity, w.timeZone); s < w.toMs; s = nextBucketStart(s, w.granularity, w.timeZone)) {
    yield s;
  }
}

/**
 * The dense sequence of bucket starts covering the window [from, to), oldest first.
 *
 * Starts with the bucket CONTAINING `from` (which may begin before it) and includes every
 * bucket whose start is < `to`. An empty or reversed window (to ≤ from) gives [].
 * Materializes every bucket: check {@link countBuckets} first for user-supplied windows.
 *
 * @throws RangeError for invalid dates, an unknown granularity or an unknown time zone.
 * @example
 * bucketStarts({ from: new Date('2026-03-08T05:00:00Z'), to: new Date('2026-03-09T04:00:00Z'),
 *   granularity: 'hour', timeZone: 'America/New_York' }).length // 23
 */
export function bucketStarts(options: BucketOptions): Date[] {
  const result: Date[] = [];
  for (const s of iterateStarts(validate(options))) result.push(new Date(s));
  return result;
}

/**
 * How many buckets {@link bucketStarts} would return, counting at most `max + 1`.
 *
 * Cost is O(min(count, max + 1)) and nothing is materialized, so a service can reject a
 * window over its limit: `countBuckets(opts, 10_000) > 10_000`.
 *
 * @param max - the caller's limit, a non-negative integer (e.g. 10 000).
 * @returns the exact count when it is ≤ `max`, otherwise `max + 1`.
 * @throws RangeError as {@link bucketStarts} does, or when `max` is not a non-negative integer.
 */
export function countBuckets(options: BucketOptions, max: number): number {
  if (!(Number.isSafeInteger(max) && max >= 0)) {
    throw new RangeError(`countBuckets needs a non-negative integer max (got ${max})`);
  }
  let count = 0;
  for (const _ of iterateStarts(validate(options))) {
    count += 1;
    if (count > max) break;
  }
  return count;
}
