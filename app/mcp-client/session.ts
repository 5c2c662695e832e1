import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { guardedSession } from '../net/guarded-fetch.ts';
import type { OutboundError } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { McpSessionFailure } from './session-failure.ts';
import { acceptingValidator } from './accepting-validator.ts';

export type McpSessionLimits = {
  policy: UrlPolicy;
  /** One deadline for the whole session: connect, initialize and every request, in milliseconds. */
  timeoutMs: number;
  /** Largest body of any one response, in bytes. */
  maxResponseBytes: number;
  /** Largest sum of every response body of the session (all pages of a listing, a call's result), in bytes. */
  maxSessionBytes: number;
  /** Ends the session early (the caller went away). */
  signal?: AbortSignal;
};

export type McpServerEndpoint = { url: string; transportType: 'http' | 'sse' };

const CLIENT_INFO = { name: 'agents-backend', version: '0.1.0' };
/** More requests than any session makes (a listing's 100 pages, the handshake), for the listener warning. */
const REQUESTS_PER_SESSION = 128;
const SESSION_ENDED = new DOMException('The MCP session ended', 'AbortError');

/**
 * Runs `work` in one MCP session with the SDK's client (Streamable HTTP, or HTTP+SSE for `sse`
 * servers), sending `headers` on every request, and always closes it. Bounds what a hostile
 * server can cost:
 * - every request goes through the guarded fetch (URL policy at connect time, no redirects
 *   followed, each body capped at `maxResponseBytes`) under one deadline;
 * - the bodies of the whole session are counted together and cut past `maxSessionBytes`;
 * - a cut or a passed deadline aborts the pending request at once;
 * - the client never compiles a JSON schema (`acceptingValidator`): the SDK would compile every
 *   tool's `outputSchema` with AJV, synchronously, on `tools/list`.
 * Failures are thrown as McpSessionFailure, judged from what the fetch saw first, then from the
 * SDK's error (a McpSessionFailure thrown by `work` passes unchanged).
 */
export async function withMcpSession<T>(
  server: McpServerEndpoint,
  headers: Record<string, string>,
  limits: McpSessionLimits,
  work: (client: Client, options: RequestOptions) => Promise<T>,
): Promise<T> {
  // Plain controllers only, no AbortSignal.timeout or AbortSignal.any: Node keeps such a signal
  // alive while it has abort listeners (timeout: until it fires; composite: for good, in Node 20),
  // and the SDK never removes its listeners, which reach every response of the session.
  // `expiry` is the deadline; `stop` ends every pending request (deadline, cut, caller, end).
  const expiry = new AbortController();
  const stop = new AbortController();
  // The SDK adds an abort listener per request and keeps it: a listing of 100 pages adds 100+.
  setMaxListeners(REQUESTS_PER_SESSION, stop.signal);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    expiry.abort(new DOMException('The deadline passed', 'TimeoutError'));
  }, limits.timeoutMs);
  const halt = (reason: unknown) => stop.abort(reason);
  const callerGone = () => halt(limits.signal?.reason);
  expiry.signal.addEventListener('abort', () => halt(expiry.signal.reason), { once: true });
  limits.signal?.addEventListener('abort', callerGone, { once: true });
  if (limits.signal?.aborted) callerGone();
  const failures: (OutboundError | McpSessionFailure)[] = [];
  const statuses: number[] = [];
  const record = (failure: OutboundError | McpSessionFailure) => {
    failures.push(failure);
    if (failure.kind === 'too_large' || failure.kind === 'over_budget') halt(failure);
  };
  const session = guardedSession({
    policy: limits.policy,
    maxResponseBytes: limits.maxResponseBytes,
    deadline: expiry.signal,
    onFailure: record,
  });
  let received = 0;
  const metered = (body: ReadableStream<Uint8Array>) =>
    body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (received <= limits.maxSessionBytes) return controller.enqueue(chunk);
          const failure = new McpSessionFailure('over_budget', `the session exceeded ${limits.maxSessionBytes} bytes`);
          record(failure);
          controller.error(failure);
        },
      }),
    );
  const observed = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await session.fetch(input, init);
    // A 405 to the optional GET stream of Streamable HTTP only means the server offers none.
    // Redirects are answered to the SDK unfollowed (it follows none across origins either).
    if (response.status >= 300 && !(init?.method === 'GET' && response.status === 405)) statuses.push(response.status);
    if (!response.body) return response;
    return new Response(metered(response.body), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers };
  const transport: Transport =
    server.transportType === 'sse'
      ? new SSEClientTransport(url, { fetch: observed, requestInit })
      : new StreamableHTTPClientTransport(url, { fetch: observed, requestInit });
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptingValidator });
  const options: RequestOptions = { signal: stop.signal, timeout: limits.timeoutMs };
  try {
    await client.connect(transport, options);
    return await work(client, options);
  } catch (error) {
    if (limits.signal?.aborted && !timedOut && failures.length === 0)
      throw new McpSessionFailure('aborted', 'the caller ended the session');
    throw classify(error, failures, statuses, timedOut);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
    await session.close();
    limits.signal?.removeEventListener('abort', callerGone);
    expiry.abort(SESSION_ENDED);
  }
}

function classify(error: unknown, failures: (OutboundError | McpSessionFailure)[], statuses: number[], timedOut: boolean) {
  const first = failures[0];
  if (first instanceof McpSessionFailure) return first;
  if (error instanceof McpSessionFailure) return error;
  if (first?.kind === 'timeout' || (!first && timedOut)) return new McpSessionFailure('timeout', 'no complete answer in time');
  if (first?.kind === 'too_large') return new McpSessionFailure('too_large', first.message);
  if (first) return new McpSessionFailure('unreachable', first.message);
  const refusal = statuses.find((status) => status === 401 || status === 403);
  if (refusal !== undefined) return new McpSessionFailure('unauthorized', `the server answered ${refusal}`);
  const status = statuses[0];
  if (status !== undefined && status < 400)
    return new McpSessionFailure('unreachable', `the server redirected (${status}); redirects are not followed`);
  if (status !== undefined) return new McpSessionFailure('unreachable', `the server answered ${status}`);
  // Anything else is an answer that is not the protocol: unparseable JSON, a malformed message, a JSON-RPC error.
  const message = error instanceof Error ? error.message : String(error);
  return new McpSessionFailure('protocol', message.slice(0, 300));
}
