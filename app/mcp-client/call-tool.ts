import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { findServerConnection } from '../../sql/agent-mcp-server-connections.ts';
import type { AppDeps } from '../core/deps.ts';
import { CodedError } from '../core/errors.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { authForServer, McpSessionFailure, withMcpSession, type McpServerRef } from './session.ts';

/** Largest sum of the bodies of one tool call's session (its result, mostly), unless the caller sets one. */
export const CALL_RESULT_MAX_BYTES = 1024 * 1024;

export type ToolCall = { name: string; arguments?: Record<string, unknown> };

export type ToolCallOptions = {
  /** Byte budget of the call's session (handshake and result). Default `CALL_RESULT_MAX_BYTES`. */
  maxResultBytes?: number;
  /** Ends the call early (the chat stream was closed). */
  signal?: AbortSignal;
};

/**
 * What calling a tool came to, never thrown:
 * - `ok`: the server answered; `isError` is the tool's own report of failure (the model may
 *   read `content` and try again), `structuredContent` as the server sent it (not checked
 *   against the tool's `outputSchema`; docs/mcp.md, Decisions);
 * - otherwise `failure` says why, `message` is safe to show (no credential), with `errorCode`
 *   for a refused auth (`MCP.AUTHORIZATION_REQUIRED`, `MCP.SERVER_UNAUTHORIZED`, `MCP_OAUTH.*`)
 *   and `rpcCode` for a JSON-RPC error answer (`rejected`: an unknown tool, invalid arguments).
 */
export type ToolCallOutcome =
  | {
      ok: true;
      isError: boolean;
      content: CallToolResult['content'];
      structuredContent: Record<string, unknown> | null;
      bytes: number;
    }
  | {
      ok: false;
      failure: 'not_found' | 'unauthorized' | 'timeout' | 'too_large' | 'unreachable' | 'protocol' | 'rejected' | 'aborted';
      message: string;
      errorCode?: string;
      rpcCode?: number;
    };

/**
 * Calls one tool of an agent MCP server (`tools/call`) with its stored auth, in one session
 * bounded as tool discovery is (session.ts): the outbound deadline `MCP_CLIENT_TIMEOUT_MS`, each
 * response capped at `MCP_CLIENT_MAX_RESPONSE_BYTES`, the whole session at `maxResultBytes`, no
 * schema compiled. A 401/403 to an OAuth access token refreshes it once and calls again (the
 * server refused the call, so it did not run). Whether the agent may call the tool (its
 * permission, an approval) is the caller's to decide before.
 */
export async function callServerTool(
  deps: AppDeps,
  ref: McpServerRef,
  call: ToolCall,
  options: ToolCallOptions = {},
): Promise<ToolCallOutcome> {
  const server = await findServerConnection(deps.db, ref);
  if (!server) return { ok: false, failure: 'not_found', message: 'MCP server not found' };
  const limits = {
    policy: urlPolicyFor(deps.config),
    timeoutMs: deps.config.mcpClient.timeoutMs,
    maxResponseBytes: deps.config.mcpClient.maxResponseBytes,
    maxSessionBytes: options.maxResultBytes ?? CALL_RESULT_MAX_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const attempt = async (rejectedAccessToken?: string) => {
    const auth = await authForServer(deps, server, rejectedAccessToken);
    const outcome = await withMcpSession(server, auth.headers, limits, async (client, requestOptions) => {
      try {
        return (await client.callTool({ name: call.name, arguments: call.arguments ?? {} }, undefined, requestOptions)) as CallToolResult;
      } catch (error) {
        // A JSON-RPC error the server answered to the call; the SDK's own (closed, timed out) and
        // anything else are judged by the session.
        if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout) {
          throw new McpSessionFailure('rejected', error.message.slice(0, 300), { rpcCode: error.code });
        }
        throw error;
      }
    }).catch((error: unknown) => {
      if (error instanceof McpSessionFailure) return error;
      throw error;
    });
    return { auth, outcome };
  };
  try {
    const first = await attempt();
    let outcome = first.outcome;
    if (outcome instanceof McpSessionFailure && outcome.kind === 'unauthorized' && first.auth.accessToken !== undefined) {
      ({ outcome } = await attempt(first.auth.accessToken));
    }
    if (outcome instanceof McpSessionFailure) return failed(outcome);
    return {
      ok: true,
      isError: outcome.isError === true,
      content: outcome.content,
      structuredContent: outcome.structuredContent ?? null,
      bytes: Buffer.byteLength(JSON.stringify(outcome)),
    };
  } catch (error) {
    if (error instanceof CodedError) return { ok: false, failure: 'unauthorized', message: error.messages.en, errorCode: error.errorCode };
    throw error;
  }
}

function failed(failure: McpSessionFailure): ToolCallOutcome {
  switch (failure.kind) {
    case 'over_budget':
    case 'too_large':
      return { ok: false, failure: 'too_large', message: failure.message };
    case 'rejected':
      return { ok: false, failure: 'rejected', message: failure.message, rpcCode: failure.detail.rpcCode! };
    case 'oversized_tool':
      return { ok: false, failure: 'protocol', message: failure.message };
    default:
      return { ok: false, failure: failure.kind, message: failure.message };
  }
}
