import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { findServerConnection } from '../../sql/agent-mcp-server-connections.ts';
import type { AppDeps } from '../core/deps.ts';
import { authForServer } from '../mcp-client/server-auth.ts';
import { guardedSession } from '../net/guarded-fetch.ts';
import type { OutboundError } from '../net/safe-fetch.ts';
import { urlPolicyFor } from '../net/url-policy.ts';

/** One `tools/call` the chat stream asks for. */
export type McpToolCall = { agencyId: string; serverId: string; toolName: string; input: unknown; signal: AbortSignal };

/**
 * Runs one tool on an agent's MCP server and returns what the model is given; throws an Error
 * whose message becomes the tool part's `output-error`. The chat stream depends only on this
 * signature, so the project's bounded `tools/call` can replace `callMcpTool` in one place.
 */
export type McpToolExecutor = (deps: AppDeps, call: McpToolCall) => Promise<unknown>;

/** Most characters of one tool result handed to the model; the rest is cut and said so. */
export const MAX_TOOL_RESULT_CHARS = 64 * 1024;

const CLIENT_INFO = { name: 'agents-backend', version: '0.1.0' };

/**
 * `tools/call` through the SDK's client with the server's stored auth (an OAuth token refreshed
 * as for tool discovery, and once more after a 401), one deadline (`MCP_CLIENT_TIMEOUT_MS`)
 * that the turn's abort signal also ends, bounded response bodies (`MCP_CLIENT_MAX_RESPONSE_BYTES`)
 * and a capped result.
 */
export const callMcpTool: McpToolExecutor = async (deps, call) => {
  const server = await findServerConnection(deps.db, { agencyId: call.agencyId, serverId: call.serverId });
  if (!server) throw new Error('The MCP server of this tool no longer exists');
  const auth = await authForServer(deps, server);
  let outcome = await callOnce(deps, server, auth.headers, call);
  if (outcome.status === 401 && auth.accessToken !== undefined) {
    const renewed = await authForServer(deps, server, auth.accessToken);
    outcome = await callOnce(deps, server, renewed.headers, call);
  }
  if ('error' in outcome) throw new Error(outcome.error);
  return outcome.result;
};

type Outcome = { result: unknown; status?: undefined } | { error: string; status?: number };

async function callOnce(
  deps: AppDeps,
  server: { url: string; transportType: 'http' | 'sse' },
  headers: Record<string, string>,
  call: McpToolCall,
): Promise<Outcome> {
  const { timeoutMs, maxResponseBytes } = deps.config.mcpClient;
  const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), call.signal]);
  const failures: OutboundError[] = [];
  let refused: number | undefined;
  const session = guardedSession({ policy: urlPolicyFor(deps.config), maxResponseBytes, deadline, onFailure: (f) => failures.push(f) });
  const observed = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await session.fetch(input, init);
    if (response.status === 401 || response.status === 403) refused ??= response.status;
    return response;
  };
  const url = new URL(server.url);
  const transport: Transport =
    server.transportType === 'sse'
      ? new SSEClientTransport(url, { fetch: observed, requestInit: { headers } })
      : new StreamableHTTPClientTransport(url, { fetch: observed, requestInit: { headers } });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const options = { signal: deadline, timeout: timeoutMs };
  try {
    await client.connect(transport, options);
    const result = await client.callTool(
      { name: call.toolName, arguments: (call.input ?? {}) as Record<string, unknown> },
      undefined,
      options,
    );
    const text = resultText(result);
    if (result.isError === true) return { error: `The MCP tool failed: ${text.slice(0, 2000)}` };
    return {
      result:
        text.length > MAX_TOOL_RESULT_CHARS
          ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)} [result cut at ${MAX_TOOL_RESULT_CHARS} characters]`
          : text,
    };
  } catch (error) {
    const first = failures[0];
    if (call.signal.aborted) return { error: 'The chat was closed before the MCP tool answered' };
    if (first?.kind === 'timeout' || deadline.aborted) return { error: `The MCP server did not answer within ${timeoutMs} ms` };
    if (first) return { error: `The MCP server could not be used: ${first.message}` };
    if (refused !== undefined) return { error: `The MCP server refused the stored credentials (HTTP ${refused})`, status: 401 };
    const message = error instanceof Error ? error.message : String(error);
    return { error: `The MCP server answered an error: ${message.slice(0, 300)}` };
  } finally {
    await client.close().catch(() => {});
    await session.close();
  }
}

/** The result as text: text contents joined, `structuredContent` as JSON when there is no text. */
function resultText(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = Array.isArray(result.content) ? (result.content as { type: string; text?: unknown }[]) : [];
  const texts = content.flatMap((item) =>
    item.type === 'text' && typeof item.text === 'string' ? [item.text] : [`[${item.type} content]`],
  );
  if (texts.length > 0) return texts.join('\n');
  return JSON.stringify(result.structuredContent ?? result.toolResult ?? null);
}
