import type { Context } from 'koa';

/** Headers a page's script may read on a channel's cross-origin answer. */
const EXPOSED_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After';

/**
 * Whether a page of `origin` may use a channel: one of its `allowedOrigins`, or the service's own
 * origin (its share page, `GET /chat/:publishableKey`).
 */
export function originAllowed(allowedOrigins: readonly string[], origin: string, serviceOrigin: string): boolean {
  return origin === serviceOrigin || allowedOrigins.includes(origin);
}

/**
 * Lets the page of `origin` read this answer (errors included): `Access-Control-Allow-Origin` is
 * that origin, never `*`, and never with credentials (the channel uses bearer tokens, no cookies).
 */
export function allowOrigin(ctx: Context, origin: string): void {
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  ctx.vary('Origin');
}

/**
 * An origin as a channel allows it: `scheme://host[:port]`, http or https, exactly as a browser
 * sends it (lowercase host, no default port, no path, no wildcard); null when `value` is not one.
 */
export function exactOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // A host name of letters, digits, dots and hyphens, or an IPv6 literal: no wildcard.
  if (!/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(url.hostname)) return null;
  return url.origin === value ? value : null;
}
