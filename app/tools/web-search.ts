import { z } from 'zod';
import type { BuiltinCall } from './builtin-executor.ts';
import { outboundOptions, OutboundError, safeFetch } from '../net/guarded-fetch.ts';

/** Results handed to the model when the call names no `limit`, and the most it may ask for. */
export const WEB_SEARCH_DEFAULT_RESULTS = 5;
export const WEB_SEARCH_MAX_RESULTS = 10;
/** Longest title and snippet kept per result, and longest URL (longer URLs are dropped). */
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1_000;
const MAX_URL_CHARS = 2_048;

const SearxResults = z.object({
  results: z.array(z.object({ title: z.unknown().optional(), url: z.unknown().optional(), content: z.unknown().optional() }).passthrough()),
});

export type WebResult = { title: string; url: string; snippet: string };

const str = (value: unknown, max: number) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, max) : '');

/**
 * The built-in `web_search`: `GET <WEB_SEARCH_URL>/search?q=<query>&format=json` (SearXNG's JSON
 * API) through the outbound URL policy (public addresses only; loopback in development), within
 * the outbound timeout and response cap. The engine is a peer like any other: whatever it
 * answers is checked, cut to `limit` results with bounded titles and snippets, and only http(s)
 * links are kept.
 */
export async function webSearch({ deps, input }: BuiltinCall): Promise<{ query: string; results: WebResult[] }> {
  const base = deps.config.tools.webSearchUrl;
  if (!base) throw new Error('web_search is not available: WEB_SEARCH_URL is not set');
  // The schema (app/tools/builtins.ts) was checked: a query of at most 500 characters, a limit of 1 to 10.
  const query = (input.query as string).trim();
  if (query === '') throw new Error('web_search needs a non-empty query');
  const limit = typeof input.limit === 'number' ? input.limit : WEB_SEARCH_DEFAULT_RESULTS;
  const url = new URL(`${base}/search`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  let response;
  try {
    response = await safeFetch(url.href, { method: 'GET', headers: { accept: 'application/json' } }, outboundOptions(deps.config));
  } catch (error) {
    if (error instanceof OutboundError) throw new Error(`web_search failed: ${error.message}`);
    throw error;
  }
  if (response.status !== 200) throw new Error(`web_search failed: the search engine answered HTTP ${response.status}`);
  let parsed;
  try {
    parsed = SearxResults.safeParse(JSON.parse(response.body.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new Error('web_search failed: the search engine did not answer the SearXNG JSON format');
  const results: WebResult[] = [];
  for (const result of parsed.data.results) {
    if (results.length >= limit) break;
    const link = str(result.url, MAX_URL_CHARS + 1);
    if (link.length > MAX_URL_CHARS || !/^https?:\/\//i.test(link)) continue;
    results.push({ title: str(result.title, MAX_TITLE_CHARS), url: link, snippet: str(result.content, MAX_SNIPPET_CHARS) });
  }
  return { query, results };
}
