import type { Config } from '../config.ts';
import { guardedSession, OutboundError, type OutboundOptions } from './guarded-fetch.ts';
import { urlPolicyFor } from './url-policy.ts';

export { OutboundError, type OutboundFailure, type OutboundOptions } from './guarded-fetch.ts';

/** The bounds of outbound requests on a user's behalf, from configuration (OUTBOUND_*). */
export const outboundOptions = ({ mcpOAuth, nodeEnv }: Config): OutboundOptions => ({
  policy: urlPolicyFor({ nodeEnv }),
  timeoutMs: mcpOAuth.outboundTimeoutMs,
  maxResponseBytes: mcpOAuth.outboundMaxResponseBytes,
  maxRedirects: mcpOAuth.outboundMaxRedirects,
});

export type OutboundRequest = { method?: string; headers?: RequestInit['headers']; body?: string };

/** `url` is the URL that answered (after redirects). */
export type OutboundResponse = { status: number; headers: Headers; url: URL; body: Buffer };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Buffered outbound HTTP on a user's behalf (the MCP SDK's OAuth requests, `fetch_url`) over
 * `guardedSession`, which checks each URL and the address actually connected to and caps the
 * body. One deadline (`timeoutMs`) covers DNS, every hop and the whole body. At most
 * `maxRedirects` hops are followed, each checked before connecting, dropping `Authorization`
 * when a hop leaves the origin and turning 301/302 after a POST and 303 into a body-less GET
 * (WHATWG fetch §4.4). Callers that send secrets pass `maxRedirects: 0`.
 */
export async function safeFetch(raw: string, request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let failure: OutboundError | undefined;
  const session = guardedSession({ ...options, deadline, onFailure: (error) => (failure ??= error) });
  let [target, method, body] = [raw, request.method ?? 'GET', request.body];
  const headers = new Headers(request.headers);
  try {
    for (let hop = 0; ; hop++) {
      const response = await session.fetch(target, { method, headers, ...(body === undefined ? {} : { body }) });
      const url = new URL(target);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
      if (location === null)
        return { status: response.status, headers: response.headers, url, body: Buffer.from(await response.arrayBuffer()) };
      await response.body?.cancel();
      if (hop >= options.maxRedirects)
        throw new OutboundError('too_many_redirects', `${url.origin} redirected more than ${options.maxRedirects} time(s)`);
      if (response.status === 303 || (response.status <= 302 && method === 'POST')) {
        [method, body] = ['GET', undefined];
        headers.delete('content-type');
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers.delete('authorization');
      target = next.href;
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (failure) throw failure;
    if (deadline.aborted) throw new OutboundError('timeout', `no complete answer within ${options.timeoutMs} ms`);
    throw new OutboundError('network', 'the request could not be completed');
  } finally {
    // One dispatcher per request: no pooled socket outlives it.
    void session.close();
  }
}
