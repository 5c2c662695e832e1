import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { findServerConnection, type ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import { listPermissionsOfServerTools } from '../../sql/agent-mcp-server-tools.ts';
import { setAgentMcpServerStatus, type ServerStatus } from '../../sql/agent-mcp-servers.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound, type CodedError } from '../core/errors.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import {
  serverProtocolError,
  serverResponseTooLarge,
  serverTimeout,
  serverToolsTooLarge,
  serverUnauthorized,
  serverUnreachable,
} from './errors.ts';
import { authForServer, McpSessionFailure, withMcpSession, type McpServerEndpoint, type McpSessionLimits } from './session.ts';
import type { PermissionStatus } from '../../sql/tool-permissions.ts';

/*
 * The tools of an agent's MCP server: asked of the server (`listServerTools`, one session),
 * bounded as they arrive (`LISTING_MAX_BYTES`, `TOOL_FIELD_MAX_BYTES`), kept briefly per app
 * (`ToolsCache`) and answered with the agent's permissions (`toolsOfServer`).
 */

export type ServerTools = {
  serverId: string;
  tools: (DiscoveredTool & { permissionStatus: PermissionStatus | null })[];
};

/**
 * GET /ai/agents/:agentId/mcp-servers/:serverId/tools: the server's tools (cached briefly unless
 * `refresh`), each with the agent's permission for it under `mcp:<serverId>` (null when none).
 * The route's scope has found the agent in the agency.
 */
export async function toolsOfServer(
  deps: AppDeps,
  ids: { organizationId: string; agentId: string; serverId: string },
  refresh: boolean,
): Promise<ServerTools> {
  const server = await findServerConnection(deps.db, ids);
  if (!server) throw notFound('MCP server');
  const listing = await listingOf(deps, server, refresh);
  const permissions = new Map(
    (await listPermissionsOfServerTools(deps.db, ids.agentId, ids.serverId)).map((p) => [p.toolName, p.permissionStatus]),
  );
  return { serverId: server.id, tools: listing.tools.map((tool) => ({ ...tool, permissionStatus: permissions.get(tool.name) ?? null })) };
}

/** The tools `server` lists: from the cache (unless `refresh`), else asked of the server and cached. */
export async function listingOf(deps: AppDeps, server: ServerConnectionRow, refresh = false): Promise<ToolListing> {
  const cached = refresh ? undefined : cachedTools(deps, server);
  if (cached) return cached;
  const listing = await discover(deps, server);
  cacheTools(deps, server, listing);
  return listing;
}

/**
 * Lists the tools with the server's auth. A 401/403 to an OAuth access token refreshes it once
 * and tries again. What happened is recorded as the server's status.
 */
async function discover(deps: AppDeps, server: ServerConnectionRow): Promise<ToolListing> {
  const limits = { policy: urlPolicyFor(deps.config), ...deps.config.mcpClient };
  const auth = await authForServer(deps, server);
  let outcome = await attempt(server, auth.headers, limits);
  if (outcome instanceof McpSessionFailure && outcome.kind === 'unauthorized' && auth.accessToken !== undefined) {
    const renewed = await authForServer(deps, server, auth.accessToken);
    outcome = await attempt(server, renewed.headers, limits);
  }
  const status: ServerStatus = !(outcome instanceof McpSessionFailure)
    ? 'connected'
    : outcome.kind !== 'unauthorized'
      ? 'unreachable'
      : server.authType === 'oauth'
        ? 'reauthorization_required'
        : 'needs_authorization';
  await setAgentMcpServerStatus(deps.db, { organizationId: server.organizationId, serverId: server.id, status, checkedAt: deps.clock() });
  if (!(outcome instanceof McpSessionFailure)) return outcome;
  deps.logger.info({ serverId: server.id, failure: outcome.kind, detail: outcome.message }, 'mcp tool discovery failed');
  throw codedFailure(outcome, status, deps);
}

function attempt(server: ServerConnectionRow, headers: Record<string, string>, limits: Parameters<typeof listServerTools>[2]) {
  return listServerTools(server, headers, limits).catch((error: unknown) => {
    if (error instanceof McpSessionFailure) return error;
    throw error;
  });
}

function codedFailure(failure: McpSessionFailure, status: ServerStatus, deps: AppDeps): CodedError {
  switch (failure.kind) {
    case 'timeout':
      return serverTimeout(deps.config.mcpClient.timeoutMs);
    case 'too_large':
      return serverResponseTooLarge(deps.config.mcpClient.maxResponseBytes);
    case 'unauthorized':
      return serverUnauthorized(status === 'reauthorization_required' ? status : 'needs_authorization', failure.message);
    case 'over_budget':
      return serverToolsTooLarge({ limit: 'listing', maxBytes: LISTING_MAX_BYTES });
    case 'oversized_tool':
      return serverToolsTooLarge({ limit: failure.detail.limit!, maxBytes: failure.detail.maxBytes!, tool: failure.detail.tool! });
    case 'protocol':
    case 'rejected':
    case 'aborted':
      return serverProtocolError(failure.message);
    default:
      return serverUnreachable(failure.message);
  }
}

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

/** Most servers whose tools one app keeps; the least recently stored goes first. */
const MAX_ENTRIES = 1_000;
/**
 * Most bytes of tools one app keeps (the sum of `ToolListing.bytes`, UTF-8 of each tool's
 * fields): with listings of at most 4 MiB, eight of the largest fit; ordinary ones by thousands.
 */
export const TOOLS_CACHE_MAX_BYTES = 32 * 1024 * 1024;

type Entry = { expiresAt: number; listing: ToolListing };

/**
 * Listings kept until `expiresAt`, bounded by entries and by bytes: storing one evicts the
 * oldest stored until both bounds hold; a listing larger than the byte budget is not kept.
 * (A Map iterates in insertion order, and a re-stored key is deleted first, so the first key is
 * always the oldest.)
 */
export class ToolsCache {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  readonly maxBytes: number;
  readonly maxEntries: number;

  constructor(maxBytes = TOOLS_CACHE_MAX_BYTES, maxEntries = MAX_ENTRIES) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): ToolListing | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt > now) return entry.listing;
    if (entry) this.#delete(key, entry);
    return undefined;
  }

  set(key: string, listing: ToolListing, expiresAt: number): void {
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    if (listing.bytes > this.maxBytes) return;
    this.#entries.set(key, { expiresAt, listing });
    this.#bytes += listing.bytes;
    while (this.#bytes > this.maxBytes || this.#entries.size > this.maxEntries) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#delete(oldest, entry);
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.listing.bytes;
  }
}

/**
 * The tools each server listed, kept `toolsCacheTtlMs` per app (one cache per AppDeps, so tests'
 * apps do not share). Keyed by agency, server and the server's `updated_at`: an edit (URL,
 * credentials) starts afresh. Permissions are never cached; they are joined at every answer.
 */
const caches = new WeakMap<AppDeps, ToolsCache>();

type ServerKey = { organizationId: string; id: string; updatedAt: string };
const keyOf = (server: ServerKey) => `${server.organizationId}/${server.id}/${server.updatedAt}`;

export function cachedTools(deps: AppDeps, server: ServerKey): ToolListing | undefined {
  return caches.get(deps)?.get(keyOf(server), deps.clock().getTime());
}

export function cacheTools(deps: AppDeps, server: ServerKey, listing: ToolListing): void {
  if (deps.config.mcpClient.toolsCacheTtlMs === 0) return;
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new ToolsCache()));
  cache.set(keyOf(server), listing, deps.clock().getTime() + deps.config.mcpClient.toolsCacheTtlMs);
}
