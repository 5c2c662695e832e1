import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpSessionFailure } from './session-failure.ts';

/**
 * What one MCP server may make the service hold when it lists its tools (docs/mcp.md, "Tools of
 * a server"). A server past any of them is refused (502 `MCP.SERVER_TOOLS_TOO_LARGE`), never
 * cut: a tool with half a description or schema would mislead the agent that calls it.
 */
export const LISTING_MAX_BYTES = 4 * 1024 * 1024;

/** UTF-8 bytes of each field of one tool (schemas and annotations as JSON). */
export const TOOL_FIELD_MAX_BYTES = {
  name: 1024,
  title: 1024,
  description: 64 * 1024,
  inputSchema: 256 * 1024,
  outputSchema: 256 * 1024,
  annotations: 16 * 1024,
} as const;

type Field = keyof typeof TOOL_FIELD_MAX_BYTES;
const FIELDS = Object.keys(TOOL_FIELD_MAX_BYTES) as Field[];

/**
 * The bytes of `tool` (the sum of its fields), or McpSessionFailure `oversized_tool` naming the
 * first field past its cap. Linear in the tool's size; nothing is compiled.
 */
export function measureTool(tool: Tool): number {
  let total = 0;
  for (const field of FIELDS) {
    const value = tool[field];
    if (value === undefined || value === null) continue;
    const bytes = Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
    if (bytes > TOOL_FIELD_MAX_BYTES[field]) {
      throw new McpSessionFailure('oversized_tool', `tool ${JSON.stringify(tool.name.slice(0, 128))}: ${field} exceeds its cap`, {
        limit: field,
        maxBytes: TOOL_FIELD_MAX_BYTES[field],
        tool: tool.name.slice(0, 128),
      });
    }
    total += bytes;
  }
  return total;
}
