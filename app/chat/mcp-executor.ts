import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../core/deps.ts';
import { callServerTool } from '../mcp-client/call-tool.ts';

/** One `tools/call` the chat stream asks for. */
export type McpToolCall = { agencyId: string; serverId: string; toolName: string; input: unknown; signal: AbortSignal };

/**
 * Runs one tool on an agent's MCP server and returns what the model is given; throws an Error
 * whose message becomes the tool part's `output-error`. The chat stream depends only on this
 * signature.
 */
export type McpToolExecutor = (deps: AppDeps, call: McpToolCall) => Promise<unknown>;

/** Most characters of one tool result handed to the model; the rest is cut and said so. */
export const MAX_TOOL_RESULT_CHARS = 64 * 1024;

/**
 * `tools/call` through the project's bounded MCP client (app/mcp-client/call-tool.ts): the
 * server's stored auth (an OAuth token refreshed once after a 401), the outbound deadline that
 * the turn's abort signal also ends, the session's byte cap, no schema compiled; then the result
 * cut to `MAX_TOOL_RESULT_CHARS` for the model.
 */
export const callMcpTool: McpToolExecutor = async (deps, call) => {
  const outcome = await callServerTool(
    deps,
    { agencyId: call.agencyId, serverId: call.serverId },
    { name: call.toolName, arguments: (call.input ?? {}) as Record<string, unknown> },
    { signal: call.signal },
  );
  if (!outcome.ok) {
    if (outcome.failure === 'not_found') throw new Error('The MCP server of this tool no longer exists');
    if (outcome.failure === 'aborted') throw new Error('The chat was closed before the MCP tool answered');
    throw new Error(`The MCP tool could not be run (${outcome.failure}): ${outcome.message}`);
  }
  const text = resultText(outcome.content, outcome.structuredContent);
  if (outcome.isError) throw new Error(`The MCP tool failed: ${text.slice(0, 2000)}`);
  return text.length > MAX_TOOL_RESULT_CHARS
    ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)} [result cut at ${MAX_TOOL_RESULT_CHARS} characters]`
    : text;
};

/** The result as text: text contents joined, `structuredContent` as JSON when there is no text. */
function resultText(content: CallToolResult['content'], structured: Record<string, unknown> | null): string {
  const items = Array.isArray(content) ? (content as { type: string; text?: unknown }[]) : [];
  const texts = items.flatMap((item) => (item.type === 'text' && typeof item.text === 'string' ? [item.text] : [`[${item.type} content]`]));
  if (texts.length > 0) return texts.join('\n');
  return JSON.stringify(structured);
}
