/**
 * Local hour boundaries in an IANA zone, computed in absolute time.
 *
 * Definition: an hour bucket starts at every instant whose LOCAL wall clock reads HH:00:00.000.
 * So in America/New_York the repeated 01:00 of a fall-back day starts two buckets (05:00Z and
 * 06:00Z), the skipped 02:00 of a spring-forward day starts none, zones at +05:30/+05:45 get
 * boundaries at UTC :30/:15, and across Australia/Lord_Howe's 30-minute shifts one local hour
 * spans 90 minutes.
 *
 * Method: move by whole hours in absolute time (never by wall-clock arithmetic, which can loop
 * in a fall-back overlap), then correct by the minutes the local clock shows past the hour
 * under the offset in force at that instant, re-checking the offset after each correction.
 * Assumption (true of tzdb zones since 1970): offset changes happen at most once within any
 * two hours and at local times on a multiple of 15 minutes.
 */
import { offsetMs } from './time-zone.ts';

const HOUR_MS = 3_600_000;
const MAX_CORRECTIONS = 4;

/** Milliseconds the local wall clock shows past the start of its hour at instant `ms`. */
function msIntoLocalHour(timeZone: string, ms: number): number {
  const local = ms + offsetMs(timeZone, ms);
  return ((local % HOUR_MS) + HOUR_MS) % HOUR_MS;
}

/** Latest instant ≤ `ms` at which the local clock reads HH:00:00.000. */
export function startOfLocalHour(timeZone: string, ms: number): number {
  let t = ms;
  for (let i = 0; i < MAX_CORRECTIONS; i++) {
    const r = msIntoLocalHour(timeZone, t);
    if (r === 0) return t;
    t -= r;
  }
  throw new RangeError(`cannot find the local hour start in ${timeZone} at ${new Date(ms).toISOString()}`);
}

/** Earliest instant > `start` at which the local clock reads HH:00:00.000 (`start` is one such instant). */
export function nextLocalHourStart(timeZone: string, start: number): number {
  let t = start + HOUR_MS;
  for (let i = 0; i < MAX_CORRECTIONS; i++) {
    const r = msIntoLocalHour(timeZone, t);
    if (r === 0) return t;
    // A spring-forward inside (start, t) can put a :00 boundary before t: check it first.
    const back = t - r;
    if (back > start && msIntoLocalHour(timeZone, back) === 0) return back;
    t += HOUR_MS - r;
  }
  throw new RangeError(`cannot find the next local hour in ${timeZone} after ${new Date(start).toISOString()}`);
}
