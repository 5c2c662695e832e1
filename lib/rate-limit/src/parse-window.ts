// Parses declaration windows such as "500ms", "30s" or "5m".

const WINDOW_PATTERN = /^(\d+)(ms|s|m)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000 } as const;

/**
 * Converts a window declaration to milliseconds.
 *
 * Accepted: one or more digits immediately followed by `ms`, `s` or `m`, with a value above zero.
 * Everything else (bare numbers, `1h`, decimals, signs, spaces, zero) throws a `TypeError` naming the value.
 */
export function parseWindow(value: unknown): number {
  const match = typeof value === 'string' ? WINDOW_PATTERN.exec(value) : null;
  if (match === null) {
    throw new TypeError(
      `Invalid rate-limit window ${describe(value)}: expected digits followed by "ms", "s" or "m" (e.g. "500ms", "30s", "5m")`,
    );
  }
  const amount = Number(match[1]);
  const ms = amount * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms <= 0 || !Number.isSafeInteger(ms)) {
    throw new TypeError(`Invalid rate-limit window ${describe(value)}: must be a positive duration`);
  }
  return ms;
}

/** Converts a `windowMs` option (milliseconds or a `Duration` string) to milliseconds; throws a `TypeError` naming a bad value. */
export function windowToMs(value: unknown): number {
  return typeof value === 'string' ? parseWindow(value) : assertWindowMs(value);
}

/** Validates a limit: a positive safe integer. */
export function assertLimit(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`Invalid rate-limit limit ${describe(value)}: expected a positive integer`);
  }
  return value;
}

/** Validates a window given in milliseconds: a positive safe integer. */
export function assertWindowMs(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`Invalid rate-limit window ${describe(value)}: expected a positive integer of milliseconds`);
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
