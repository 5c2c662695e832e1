import { readableText } from '../core/html-text.ts';
import { outboundOptions, OutboundError, safeFetch } from '../net/guarded-fetch.ts';
import type { BuiltinCall } from './builtin-executor.ts';

/** Most characters of page text handed to the model. */
export const MAX_FETCHED_TEXT_CHARS = 20_000;

/**
 * The built-in `fetch_url`: GET through the outbound URL policy (public addresses only, bounded
 * time, bytes and redirects), then the readable text of the page, capped.
 */
export async function fetchUrl({ deps, input }: BuiltinCall): Promise<{ url: string; status: number; text: string; truncated: boolean }> {
  const url = input.url as string;
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
