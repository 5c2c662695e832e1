import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpSessionFailure } from './session-failure.ts';
import { withMcpSession, type McpServerEndpoint, type McpSessionLimits } from './session.ts';
import { LISTING_MAX_BYTES, measureTool } from './tool-bounds.ts';

/** A tool as `tools/list` describes it (MCP spec, "Tools"). */
export type DiscoveredTool = {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
};

/** Every tool of a server, and the bytes of what was kept (the tools cache's measure). */
export type ToolListing = { tools: DiscoveredTool[]; bytes: number };

export type ListToolsLimits = Omit<McpSessionLimits, 'maxSessionBytes'>;

/** A server listing more pages than this is refused (a cursor loop). */
const MAX_PAGES = 100;
const MAX_TOOLS = 2_000;

/**
 * Lists every tool of an MCP server following `nextCursor`, in one session (session.ts: guarded
 * fetch, one deadline, no schema compiled). Bounded: the bodies of the whole listing by
 * `LISTING_MAX_BYTES` (`over_budget`), each tool's fields by `TOOL_FIELD_MAX_BYTES`
 * (`oversized_tool`, checked as each page arrives, so an oversized first page ends the session),
 * and the pages and tools by count (`protocol`). Throws McpSessionFailure.
 */
export function listServerTools(server: McpServerEndpoint, headers: Record<string, string>, limits: ListToolsLimits): Promise<ToolListing> {
  return withMcpSession(server, headers, { ...limits, maxSessionBytes: LISTING_MAX_BYTES }, async (client, options) => {
    const listing: ToolListing = { tools: [], bytes: 0 };
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
      for (const tool of result.tools) {
        listing.bytes += measureTool(tool);
        listing.tools.push(toDiscovered(tool));
      }
      if (listing.tools.length > MAX_TOOLS) throw new McpSessionFailure('protocol', `the server lists more than ${MAX_TOOLS} tools`);
      if (!result.nextCursor) return listing;
      if (cursors.has(result.nextCursor)) throw new McpSessionFailure('protocol', 'the server repeated a tools/list cursor');
      cursors.add(result.nextCursor);
      cursor = result.nextCursor;
    }
    throw new McpSessionFailure('protocol', `the server lists more than ${MAX_PAGES} pages of tools`);
  });
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
