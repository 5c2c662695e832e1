import type { Config } from '../config.ts';
import { checkOutboundUrl, guardedAgent, UrlRefusedError, urlPolicyFor, type HostLookup, type UrlPolicy } from './url-policy.ts';

/*
 * The service's outbound HTTP, every request under the URL policy (url-policy.ts):
 * `guardedSession` (streaming, for the MCP SDK's transports and a BYOK provider), `safeFetch`
 * over it (buffered, following checked redirects) and `providerFetch` (the model provider's
 * idle timeout and byte cap, over either).
 */

/** The bounds of outbound requests on a user's behalf (see docs/mcp-oauth.md, "Decisions"). */
export type OutboundOptions = {
  policy: UrlPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** Host resolution for the URL check and the connect-time check (tests); node:dns by default. */
  lookup?: HostLookup;
};

export type OutboundFailure = 'refused' | 'timeout' | 'too_large' | 'too_many_redirects' | 'network';

/** Why an outbound request failed; `message` names the URL's origin, never a secret. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  readonly kind: OutboundFailure;
  constructor(kind: OutboundFailure, message: string) {
    super(message);
    this.kind = kind;
  }
}

/**
 * A `fetch` for libraries that stream (the MCP SDK's transports), with the guarantees of
 * `safeFetch` (ADR 0036) except buffering:
 * - every URL is checked with `checkOutboundUrl` before connecting, and the socket lookup checks
 *   the addresses again at connect time (`guardedAgent`, DNS rebinding);
 * - redirects are not followed here (`redirect: 'manual'`: a 3xx is answered to the caller,
 *   which may call again for the new URL, checked like any other);
 * - one deadline (`deadline`) covers every request of the session and their bodies;
 * - every response body is streamed through a counter that fails past `maxResponseBytes`.
 * Each failure is an OutboundError, also reported to `onFailure`, so that a caller whose library
 * wraps errors its own way still knows what happened.
 */
export type GuardedSession = {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Ends the session's connections. */
  close(): Promise<void>;
};

export function guardedSession(
  options: Pick<OutboundOptions, 'policy' | 'maxResponseBytes' | 'lookup'> & {
    deadline: AbortSignal;
    onFailure: (failure: OutboundError) => void;
  },
): GuardedSession {
  const dispatcher = guardedAgent(options.policy, options.lookup);
  // One listener per session: a URL check (its DNS lookup) yields to the deadline.
  const deadlinePassed = new Promise<never>((_, reject) =>
    options.deadline.addEventListener('abort', () => reject(options.deadline.reason as Error), { once: true }),
  );
  deadlinePassed.catch(() => {});
  const fail = (kind: OutboundError['kind'], message: string) => {
    const failure = new OutboundError(kind, message);
    options.onFailure(failure);
    return failure;
  };
  const capped = (body: ReadableStream<Uint8Array>) => {
    let total = 0;
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > options.maxResponseBytes)
            controller.error(fail('too_large', `the response exceeded ${options.maxResponseBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
  };

  return {
    async fetch(input, init = {}) {
      const raw = input instanceof Request ? input.url : String(input);
      let url: URL;
      try {
        // The lookup inside the check has its own (longer) timeout; the deadline wins.
        options.deadline.throwIfAborted();
        url = await Promise.race([checkOutboundUrl(raw, options.policy, options.lookup ? { lookup: options.lookup } : {}), deadlinePassed]);
      } catch (error) {
        if (error instanceof UrlRefusedError) throw fail('refused', `refused to call ${originOf(raw)}: ${error.message}`);
        if (options.deadline.aborted) throw fail('timeout', 'no answer before the deadline');
        throw error;
      }
      const signal = init.signal ? AbortSignal.any([init.signal, options.deadline]) : options.deadline;
      let response: Response;
      try {
        // `dispatcher` is undici's extension of RequestInit, honoured by Node's global fetch.
        response = await fetch(url, { ...init, redirect: 'manual', signal, dispatcher } as RequestInit);
      } catch (error) {
        if (options.deadline.aborted) throw fail('timeout', 'no answer before the deadline');
        if (init.signal?.aborted) throw error;
        if (causes(error).some((cause) => cause instanceof UrlRefusedError)) {
          throw fail('refused', `refused to connect to ${url.origin}: its address is not public`);
        }
        throw fail('network', `${url.origin} could not be reached`);
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) {
        await response.body?.cancel();
        throw fail('too_large', `the response exceeded ${options.maxResponseBytes} bytes`);
      }
      if (!response.body) return response;
      return new Response(capped(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    close: () => dispatcher.destroy().catch(() => {}),
  };
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 5; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (current === null || typeof current !== 'object') break;
  }
  return chain;
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return 'an invalid URL';
  }
}

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

/**
 * The `fetch` the model provider is called through. A provider is a remote peer like any other:
 * - `idleTimeoutMs` bounds the wait for the response and then for every next body chunk (a
 *   streamed answer may take long as a whole, but never stalls longer than this);
 * - `maxResponseBytes` bounds the bytes one response may send;
 * - every failure is recorded (`failures`) so the stream's error chunk can name the cause
 *   without quoting the provider's text, which could echo the key.
 */
export type ProviderFailure = 'timeout' | 'too_large' | 'unreachable';

export type ProviderFetch = {
  fetch: typeof fetch;
  failures: ProviderFailure[];
};

export function providerFetch(
  base: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
  limits: { idleTimeoutMs: number; maxResponseBytes: number },
): ProviderFetch {
  const failures: ProviderFailure[] = [];
  const wrapped = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        failures.push('timeout');
        idle.abort(new Error('the model provider did not answer in time'));
      }, limits.idleTimeoutMs);
    };
    arm();
    const signal = init.signal ? AbortSignal.any([init.signal, idle.signal]) : idle.signal;
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      if (!idle.signal.aborted && !init.signal?.aborted) failures.push('unreachable');
      throw error;
    }
    if (!response.body) {
      clearTimeout(timer);
      return response;
    }
    arm();
    let total = 0;
    // A pulled stream over the body's reader rather than a pipe through a TransformStream: the
    // same chunks, errors and cancellation, at a fraction of a pipe's memory (one per model call
    // held open while its answer streams).
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await reader.read();
        if (next.done) {
          clearTimeout(timer);
          controller.close();
          return;
        }
        total += next.value.byteLength;
        if (total > limits.maxResponseBytes) {
          clearTimeout(timer);
          failures.push('too_large');
          controller.error(new Error(`the model provider sent more than ${limits.maxResponseBytes} bytes`));
          idle.abort();
          return;
        }
        arm();
        controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: wrapped as typeof fetch, failures };
}
