/**
 * IANA time-zone validation and offsets.
 *
 * Validity is decided by the platform's ICU data through `Intl.DateTimeFormat`, which throws
 * a RangeError for unknown zones (ECMA-402 §11.1.2, IsValidTimeZoneName).
 */
import { tzOffset } from '@date-fns/tz';

/**
 * Whether `timeZone` names a time zone this runtime knows ('UTC', 'Europe/Berlin', …).
 *
 * @param timeZone - candidate IANA name; any value is accepted and non-strings give false.
 * @returns false for the empty string, whitespace and unknown names. Offset strings such as
 *   '+05:30' are accepted only by runtimes whose Intl supports them (Node 20 does not).
 */
export function isValidTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Throws a RangeError unless `timeZone` is valid (see {@link isValidTimeZone}). */
export function assertTimeZone(timeZone: string): void {
  if (!isValidTimeZone(timeZone)) {
    throw new RangeError(`unknown time zone: ${JSON.stringify(timeZone)}`);
  }
}

/** UTC offset of `timeZone` at the instant `ms`, in milliseconds (local = UTC + offset). */
export function offsetMs(timeZone: string, ms: number): number {
  return tzOffset(timeZone, new Date(ms)) * 60_000;
}
