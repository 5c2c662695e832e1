// IETF RateLimit header values (draft-ietf-httpapi-ratelimit-headers-08 and later).

/** Whole seconds, rounded up, never below 1: the unit of `w`, `Retry-After` and the denial body. */
export function ceilSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Serialises `name` as a structured-field String; throws for characters a String cannot carry. */
export function quotePolicyName(name: string): string {
  if (!/^[\x20-\x7e]+$/.test(name)) {
    throw new TypeError(`Invalid rate-limit policy name ${JSON.stringify(name)}: expected printable ASCII`);
  }
  return `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** `RateLimit-Policy: "<name>";q=<limit>;w=<window seconds, rounded up>`. Constant per declaration. */
export function formatPolicy(quotedName: string, limit: number, windowMs: number): string {
  return `${quotedName};q=${limit};w=${ceilSeconds(windowMs)}`;
}

/** `RateLimit: "<name>";r=<remaining>;t=<seconds until the oldest entry leaves the window, rounded up>`. */
export function formatRateLimit(quotedName: string, remaining: number, untilResetMs: number): string {
  return `${quotedName};r=${remaining};t=${Math.max(0, Math.ceil(untilResetMs / 1000))}`;
}
