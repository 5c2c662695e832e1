import type { Dispatcher } from 'undici';
import { guardedAgent } from './connect-guard.ts';
import { checkOutboundUrl, UrlRefusedError, type HostLookup, type UrlPolicy } from './url-policy.ts';

/**
 * Outbound HTTP on a user's behalf (OAuth discovery, client registration, token requests),
 * with Node's global fetch (undici). Every request:
 * - has one deadline covering DNS, every redirect hop and the whole body (AbortSignal);
 * - reads at most `maxResponseBytes` of body, streamed, and aborts past it;
 * - uses `redirect: 'manual'` and follows at most `maxRedirects` hops itself, checking every
 *   hop's URL with `checkOutboundUrl` before connecting (a redirect to a refused address is
 *   refused without a connection to it);
 * - drops `Authorization` when a redirect leaves the origin, and turns 301/302/303 after a
 *   POST into a body-less GET (WHATWG fetch §4.4). Callers that send secrets pass
 *   `maxRedirects: 0`.
 *
 * DNS rebinding: `checkOutboundUrl` resolves the host before the request, and the connection
 * is made through a dispatcher whose socket lookup checks the addresses again at connect time
 * (`connect-guard.ts`), so a changed DNS answer cannot reach a refused address.
 * See docs/mcp-oauth.md, "Decisions" (was ADR 0036).
 */
export type OutboundOptions = {
  policy: UrlPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** Host resolution for the URL check and the connect-time check (tests); node:dns by default. */
  lookup?: HostLookup;
};

export type OutboundRequest = {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
};

export type OutboundResponse = {
  status: number;
  headers: Headers;
  /** The URL that answered (after redirects). */
  url: URL;
  body: Buffer;
};

export type OutboundFailure = 'refused' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network' | 'invalid_json';

/** Why an outbound request failed; `message` names the URL's origin, never a secret. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function safeFetch(raw: string, request: OutboundRequest, options: OutboundOptions): Promise<OutboundResponse> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const dispatcher = guardedAgent(options.policy, options.lookup);
  try {
    return await follow(raw, request, options, signal, dispatcher);
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (signal.aborted) throw new OutboundError('timeout', `no complete answer within ${options.timeoutMs} ms`);
    if (causes(error).some((cause) => cause instanceof UrlRefusedError)) {
      throw new OutboundError('refused', `refused to connect to ${safeOrigin(raw)}: its address is not public`);
    }
    throw new OutboundError('network', 'the request could not be completed');
  } finally {
    // One dispatcher per request: no pooled socket outlives it.
    dispatcher.destroy().catch(() => {});
  }
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (current === null || typeof current !== 'object') break;
  }
  return chain;
}

async function follow(
  raw: string,
  request: OutboundRequest,
  options: OutboundOptions,
  signal: AbortSignal,
  dispatcher: Dispatcher,
): Promise<OutboundResponse> {
  let target = raw;
  let method = request.method ?? 'GET';
  let body = request.body;
  const headers = { ...request.headers };
  let previous: URL | undefined;
  for (let hop = 0; ; hop++) {
    const url = await checked(target, options, signal);
    if (previous && previous.origin !== url.origin) delete headers.authorization;
    // `dispatcher` is undici's extension of RequestInit, honoured by Node's global fetch.
    const init = { method, headers, body, redirect: 'manual', signal, dispatcher } as RequestInit;
    const response = await fetch(url, init);
    if (!REDIRECT_STATUSES.has(response.status)) {
      return { status: response.status, headers: response.headers, url, body: await readBounded(response, options) };
    }
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (location === null) {
      return { status: response.status, headers: response.headers, url, body: Buffer.alloc(0) };
    }
    if (hop >= options.maxRedirects) {
      throw new OutboundError('too_many_redirects', `${url.origin} redirected more than ${options.maxRedirects} time(s)`);
    }
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    previous = url;
    target = new URL(location, url).href;
  }
}

async function checked(target: string, options: OutboundOptions, signal: AbortSignal): Promise<URL> {
  try {
    // The lookup inside the check has its own (longer) timeout; the request's deadline wins.
    return await untilAborted(checkOutboundUrl(target, options.policy, options.lookup ? { lookup: options.lookup } : {}), signal);
  } catch (error) {
    if (error instanceof UrlRefusedError) {
      throw new OutboundError('refused', `refused to call ${safeOrigin(target)}: ${error.message}`);
    }
    throw error;
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Reads the body chunk by chunk and aborts as soon as it passes the bound. */
async function readBounded(response: Response, options: OutboundOptions): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
    await response.body?.cancel();
    throw tooLarge(options);
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > options.maxResponseBytes) {
      await reader.cancel();
      throw tooLarge(options);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (options: OutboundOptions) => new OutboundError('too_large', `the response exceeded ${options.maxResponseBytes} bytes`);

/** The JSON object of a response body, or an `invalid_json` error naming where it came from. */
export function jsonObjectOf(response: OutboundResponse): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new OutboundError('invalid_json', `${response.url.origin}${response.url.pathname} did not answer valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new OutboundError('invalid_json', `${response.url.origin}${response.url.pathname} did not answer a JSON object`);
  }
  return value as Record<string, unknown>;
}

function safeOrigin(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return 'an invalid URL';
  }
}
