/** UTF-8 decoding that replaces invalid bytes (and encoded surrogates) by U+FFFD, as WHATWG's decoder does. */
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** A run of `%XX` escapes: the bytes of one or more UTF-8 sequences. */
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * Decodes the percent-escapes of a path segment or query component. Unlike
 * `decodeURIComponent` it never throws and never leaves escapes undecoded: invalid UTF-8
 * becomes U+FFFD, the same rule the JSON body decoder applies (ADR 0060).
 */
export function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(ESCAPE_RUN, (run) => utf8.decode(Buffer.from(run.replace(/%/g, ''), 'hex')));
}

/** The query-string decoder: `+` is a space (form encoding), then percent-escapes as above. */
export const decodeQueryComponent = (text: string) => decodePercent(text.replace(/\+/g, ' '));
