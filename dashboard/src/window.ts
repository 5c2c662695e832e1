/**
 * The reporting window the pickers describe, computed in the chosen IANA time zone with
 * @date-fns/tz (so "last 7 days" and "month to date" follow the zone's calendar, DST included).
 */
import { TZDate } from '@date-fns/tz';
import { addDays, addHours, startOfHour, startOfMonth, subDays } from 'date-fns';

export type Range = '7d' | '30d' | '90d' | 'mtd' | 'custom';

export type WindowSettings = {
  range: Range;
  /** `YYYY-MM-DD`, first local day of a custom window. */
  customFrom: string;
  /** `YYYY-MM-DD`, last local day of a custom window (included). */
  customTo: string;
  timeZone: string;
};

export type ReportWindow = { from: Date; to: Date };

const DAYS: Record<'7d' | '30d' | '90d', number> = { '7d': 7, '30d': 30, '90d': 90 };

function localMidnight(isoDate: string, timeZone: string): TZDate | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) return undefined;
  return new TZDate(Number(match[1]), Number(match[2]) - 1, Number(match[3]), timeZone);
}

/**
 * Rolling windows end at the start of the next local hour, so the current hour is included and
 * reloads within one hour ask the same question (and hit the API's result cache).
 * Returns a message instead of a window when a custom window is incomplete or reversed.
 */
export function reportWindow(settings: WindowSettings, now: Date): ReportWindow | string {
  const local = new TZDate(now.getTime(), settings.timeZone);
  const end = addHours(startOfHour(local), 1);
  if (settings.range === 'mtd') return { from: new Date(startOfMonth(local).getTime()), to: new Date(end.getTime()) };
  if (settings.range === 'custom') {
    const first = localMidnight(settings.customFrom, settings.timeZone);
    const last = localMidnight(settings.customTo, settings.timeZone);
    if (!first || !last) return 'Choose the first and the last day of the custom window.';
    if (last.getTime() < first.getTime()) return 'The last day of the window must not be before the first.';
    return { from: new Date(first.getTime()), to: new Date(addDays(last, 1).getTime()) };
  }
  return { from: new Date(subDays(end, DAYS[settings.range]).getTime()), to: new Date(end.getTime()) };
}

/** End of the UTC month that contains the window's last instant: where the projection ends (docs/interface.md §5). */
export function projectionEnd(window: ReportWindow): Date {
  const last = new Date(window.to.getTime() - 1);
  return new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 1));
}

/** `YYYY-MM-DD` of an instant in a zone (for the custom pickers' defaults). */
export function localIsoDate(date: Date, timeZone: string): string {
  const local = new TZDate(date.getTime(), timeZone);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
}
