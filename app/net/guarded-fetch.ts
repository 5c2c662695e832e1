import { guardedAgent } from './connect-guard.ts';
import { checkOutboundUrl, UrlRefusedError, type HostLookup, type UrlPolicy } from './url-policy.ts';

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
 *   the addresses again at connect time (`connect-guard.ts`, DNS rebinding);
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
