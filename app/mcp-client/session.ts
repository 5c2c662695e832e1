import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { jsonSchemaValidator, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { findServerConnection, type ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound } from '../core/errors.ts';
import { openJson } from '../crypto/credentials.ts';
import { oauthAccessToken } from '../mcp-oauth/refresh.ts';
import { credentialsContext } from '../mcp-servers/provision.ts';
import type { StoredCredentials } from '../mcp-servers/credentials.ts';
import { guardedSession } from '../net/guarded-fetch.ts';
import type { OutboundError } from '../net/guarded-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';

/*
 * One MCP session with an agent's server, as this service's client opens it: the auth it sends
 * (`authForServer`), how it fails (`McpSessionFailure`), the schema validator that compiles
 * nothing (`acceptingValidator`) and `withMcpSession`, which bounds it. Listing tools
 * (tool-discovery.ts) and calling one (call-tool.ts) each run in one such session.
 */

/**
 * The auth of an agent MCP server, for an agent runtime and for this service's own MCP client:
 * the request headers to send on every MCP HTTP request (never in a query string).
 */
export type McpServerAuth = {
  headers: Record<string, string>;
  /** The OAuth access token inside `headers.authorization`, to pass back as `rejectedAccessToken` after a 401. */
  accessToken?: string;
};

export type McpServerRef = { organizationId: string; serverId: string; agentId?: string };

/**
 * Usable auth for an agent MCP server, ready to send:
 * - `none`: no headers; `static_headers`: the stored headers (opened from their sealed form);
 * - `oauth`: `Authorization: Bearer <access token>`, refreshed with the refresh_token grant
 *   60 s before expiry, single-flight per server across processes (app/mcp-oauth/refresh.ts).
 * After the MCP server answered 401 to a token, call again with `rejectedAccessToken`: the
 * token is refreshed once (unless another caller already did).
 *
 * Throws 404 for an unknown server, 409 `MCP.AUTHORIZATION_REQUIRED` for an OAuth server never
 * authorized, 502 `MCP.SERVER_UNAUTHORIZED` when its refresh token was refused (the server is
 * then `reauthorization_required`), and the coded `MCP_OAUTH.*` errors of the token endpoint.
 */
export async function validAuthForAgentMcpServer(
  deps: AppDeps,
  ref: McpServerRef,
  options: { rejectedAccessToken?: string } = {},
): Promise<McpServerAuth> {
  const server = await findServerConnection(deps.db, ref);
  if (!server) throw notFound('MCP server');
  return authForServer(deps, server, options.rejectedAccessToken);
}

/** The same for a server row already loaded. */
export async function authForServer(deps: AppDeps, server: ServerConnectionRow, rejectedAccessToken?: string): Promise<McpServerAuth> {
  if (server.authType === 'oauth') {
    const accessToken = await oauthAccessToken(deps, { organizationId: server.organizationId, serverId: server.id }, rejectedAccessToken);
    return { headers: { authorization: `Bearer ${accessToken}` }, accessToken };
  }
  if (server.credentials === null || server.credentialsKeyId === null) return { headers: {} };
  const stored = openJson<StoredCredentials>(
    deps.config.credentialsKeyring,
    { keyId: server.credentialsKeyId, ciphertext: server.credentials },
    credentialsContext(server.organizationId, server.id),
  );
  return { headers: { ...stored.headers } };
}

/**
 * Why an MCP session failed:
 * - `timeout`, `too_large` (one response over its cap), `unreachable`, `unauthorized` (401/403),
 *   `protocol` (not MCP): what the transport saw;
 * - `over_budget`: the responses of the session together passed its byte budget;
 * - `oversized_tool`: a listed tool's field passed its cap (`limit` names it, `tool` the tool);
 * - `rejected`: the server answered a request of ours with a JSON-RPC error (`rpcCode`);
 * - `aborted`: the caller's signal ended the session.
 * `message` names no credential.
 */
export type McpSessionFailureKind =
  'timeout' | 'too_large' | 'over_budget' | 'oversized_tool' | 'unreachable' | 'unauthorized' | 'protocol' | 'rejected' | 'aborted';

export class McpSessionFailure extends Error {
  override name = 'McpSessionFailure';
  readonly kind: McpSessionFailureKind;
  readonly detail: { limit?: string; maxBytes?: number; tool?: string; rpcCode?: number };
  constructor(
    kind: McpSessionFailureKind,
    message: string,
    detail: { limit?: string; maxBytes?: number; tool?: string; rpcCode?: number } = {},
  ) {
    super(message);
    this.kind = kind;
    this.detail = detail;
  }
}

/**
 * The SDK client's `jsonSchemaValidator` for this service: it compiles nothing and accepts every
 * value. Without it the client compiles each listed tool's `outputSchema` with AJV,
 * synchronously, on the event loop: a 13 KB schema of 200 properties each `$ref`-ing 200 more
 * takes seconds of CPU. Listing tools needs no validation; a tool's structured result is passed
 * on as the server sent it, not checked against its `outputSchema` (docs/mcp.md, Decisions).
 */
const acceptAll: JsonSchemaValidator<unknown> = (input) => ({ valid: true, data: input, errorMessage: undefined });

export const acceptingValidator: jsonSchemaValidator = {
  getValidator: <T>() => acceptAll as JsonSchemaValidator<T>,
};

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
