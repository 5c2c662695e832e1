/**
 * Local calendar fields of an instant, for day-of-week × hour heatmaps.
 */
import { TZDate } from '@date-fns/tz';
import { assertTimeZone } from './time-zone.ts';

/** Local weekday and hour of an instant. */
export interface LocalDayOfWeekAndHour {
  /** 0 = Sunday … 6 = Saturday (as `Date.prototype.getDay` and PostgreSQL `EXTRACT(DOW …)`). */
  readonly dayOfWeek: number;
  /** 0–23, the hour the local wall clock shows (a repeated fall-back hour maps to the same value twice). */
  readonly hour: number;
}

/**
 * The local day of week and hour of `instant` in `timeZone`.
 *
 * @param instant - a Date or epoch milliseconds.
 * @param timeZone - IANA zone name, e.g. 'America/New_York'.
 * @throws RangeError for an invalid instant or an unknown time zone.
 * @example localDayOfWeekAndHour(Date.UTC(2026, 2, 8, 7), 'America/New_York') // { dayOfWeek: 0, hour: 3 }
 */
export function localDayOfWeekAndHour(instant: Date | number, timeZone: string): LocalDayOfWeekAndHour {
  assertTimeZone(timeZone);
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('localDayOfWeekAndHour needs a valid instant');
  const local = new TZDate(ms, timeZone);
  return { dayOfWeek: local.getDay(), hour: local.getHours() };
}
