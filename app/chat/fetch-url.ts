import { outboundOptions, OutboundError, safeFetch } from '../net/safe-fetch.ts';
import type { BuiltinCall } from './builtin-executor.ts';

/** Most characters of page text handed to the model. */
export const MAX_FETCHED_TEXT_CHARS = 20_000;

/**
 * The built-in `fetch_url`: GET through the outbound URL policy (public addresses only, bounded
 * time, bytes and redirects), then the readable text of the page, capped.
 */
export async function fetchUrl({ deps, input }: BuiltinCall): Promise<{ url: string; status: number; text: string; truncated: boolean }> {
  const url = String(input.url ?? '');
  try {
    const headers = { accept: 'text/html, text/plain;q=0.9, */*;q=0.1' };
    const response = await safeFetch(url, { method: 'GET', headers }, outboundOptions(deps.config));
    const body = response.body.toString('utf8');
    const html = /html/i.test(response.headers.get('content-type') ?? '');
    const readable = html ? readableText(body) : body.replace(/\s+/g, ' ').trim();
    return {
      url: response.url.href,
      status: response.status,
      text: readable.slice(0, MAX_FETCHED_TEXT_CHARS),
      truncated: readable.length > MAX_FETCHED_TEXT_CHARS,
    };
  } catch (error) {
    if (error instanceof OutboundError) throw new Error(`fetch_url failed: ${error.message}`);
    throw error;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

const HIDDEN = ['script', 'style', 'noscript', 'template'];

/** `html` without the contents of hidden elements and comments; one linear scan (no backtracking regex over the page). */
export function withoutHidden(html: string): string {
  const lower = html.toLowerCase();
  let out = '';
  let at = 0;
  while (at < html.length) {
    const open = lower.indexOf('<', at);
    if (open < 0) break;
    const comment = lower.startsWith('<!--', open);
    const hidden = comment
      ? undefined
      : HIDDEN.find((name) => lower.startsWith(name, open + 1) && !/[a-z0-9-]/.test(lower[open + 1 + name.length] ?? ''));
    if (!comment && !hidden) {
      out += html.slice(at, open + 1);
      at = open + 1;
      continue;
    }
    out += `${html.slice(at, open)} `;
    const close = comment ? '-->' : `</${hidden}`;
    const end = lower.indexOf(close, open + 1);
    if (end < 0) return out;
    at = comment ? end + 3 : Math.max(end + 1, lower.indexOf('>', end) + 1);
  }
  return out + html.slice(at);
}

/** The text of an HTML page: scripts, styles, comments and tags removed, common entities decoded, whitespace collapsed. */
export function readableText(html: string): string {
  return withoutHidden(html)
    .replace(/<[^<>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return safeChar(Number.parseInt(name.slice(2), 16)) ?? entity;
      if (name.startsWith('#')) return safeChar(Number(name.slice(1))) ?? entity;
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const safeChar = (code: number) => (Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined);
