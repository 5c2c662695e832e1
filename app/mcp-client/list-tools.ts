import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { guardedSession } from '../net/guarded-fetch.ts';
import type { OutboundError } from '../net/safe-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';

/** A tool as `tools/list` describes it (MCP spec, "Tools"). */
export type DiscoveredTool = {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
};

export type ListToolsLimits = {
  policy: UrlPolicy;
  /** One deadline for the whole session: connect, initialize and every page, in milliseconds. */
  timeoutMs: number;
  /** Largest body of any one response, in bytes. */
  maxResponseBytes: number;
};

/** Why a session failed, judged from what the guarded fetch saw first, then from the SDK's error. */
export type ListToolsFailureKind = 'timeout' | 'too_large' | 'unreachable' | 'unauthorized' | 'protocol';

export class ListToolsFailure extends Error {
  override name = 'ListToolsFailure';
  constructor(
    readonly kind: ListToolsFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** A server listing more pages than this is refused (a cursor loop). */
const MAX_PAGES = 100;
const MAX_TOOLS = 2_000;
const CLIENT_INFO = { name: 'agents-backend', version: '0.1.0' };

/**
 * Connects to an MCP server with the SDK's client (Streamable HTTP, or HTTP+SSE for `sse`
 * servers), sends `headers` on every request, and lists every tool following `nextCursor`.
 * All traffic goes through the guarded fetch (URL policy at connect time, one deadline,
 * bounded bodies, no redirects). Always closes the session.
 */
export async function listServerTools(
  server: { url: string; transportType: 'http' | 'sse' },
  headers: Record<string, string>,
  limits: ListToolsLimits,
): Promise<DiscoveredTool[]> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const failures: OutboundError[] = [];
  const statuses: number[] = [];
  const session = guardedSession({
    policy: limits.policy,
    maxResponseBytes: limits.maxResponseBytes,
    deadline,
    onFailure: (failure) => failures.push(failure),
  });
  const observed = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await session.fetch(input, init);
    // A 405 to the optional GET stream of Streamable HTTP only means the server offers none.
    // Redirects are answered to the SDK unfollowed (it follows none across origins either).
    if (response.status >= 300 && !(init?.method === 'GET' && response.status === 405)) statuses.push(response.status);
    return response;
  };
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers };
  const transport: Transport =
    server.transportType === 'sse'
      ? new SSEClientTransport(url, { fetch: observed, requestInit })
      : new StreamableHTTPClientTransport(url, { fetch: observed, requestInit });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const options = { signal: deadline, timeout: limits.timeoutMs };
  try {
    await client.connect(transport, options);
    const tools: DiscoveredTool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
      tools.push(...result.tools.map(toDiscovered));
      if (tools.length > MAX_TOOLS) throw new ListToolsFailure('protocol', `the server lists more than ${MAX_TOOLS} tools`);
      if (!result.nextCursor) return tools;
      if (cursors.has(result.nextCursor)) throw new ListToolsFailure('protocol', 'the server repeated a tools/list cursor');
      cursors.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    throw new ListToolsFailure('protocol', `the server lists more than ${MAX_PAGES} pages of tools`);
  } catch (error) {
    throw classify(error, failures, statuses, deadline);
  } finally {
    await client.close().catch(() => {});
    await session.close();
  }
}

function classify(error: unknown, failures: OutboundError[], statuses: number[], deadline: AbortSignal): ListToolsFailure {
  if (error instanceof ListToolsFailure) return error;
  const first = failures[0];
  if (first?.kind === 'timeout' || (!first && deadline.aborted)) return new ListToolsFailure('timeout', 'no complete answer in time');
  if (first?.kind === 'too_large') return new ListToolsFailure('too_large', first.message);
  if (first) return new ListToolsFailure('unreachable', first.message);
  const refusal = statuses.find((status) => status === 401 || status === 403);
  if (refusal !== undefined) return new ListToolsFailure('unauthorized', `the server answered ${refusal}`);
  const status = statuses[0];
  if (status !== undefined && status < 400)
    return new ListToolsFailure('unreachable', `the server redirected (${status}); redirects are not followed`);
  if (status !== undefined) return new ListToolsFailure('unreachable', `the server answered ${status}`);
  // Anything else is an answer that is not the protocol: unparseable JSON, a malformed message, a JSON-RPC error.
  const message = error instanceof Error ? error.message : String(error);
  return new ListToolsFailure('protocol', message.slice(0, 300));
}

type SdkTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

function toDiscovered(tool: SdkTool): DiscoveredTool {
  const title = tool.title ?? tool.annotations?.title;
  return {
    name: tool.name,
    title: typeof title === 'string' ? title : null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations: tool.annotations ? (tool.annotations as Record<string, unknown>) : null,
  };
}
