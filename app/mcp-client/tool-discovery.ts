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
import { listServerTools, type DiscoveredTool, type ToolListing } from './list-tools.ts';
import { authForServer } from './server-auth.ts';
import { McpSessionFailure } from './session-failure.ts';
import { LISTING_MAX_BYTES } from './tool-bounds.ts';
import { cachedTools, cacheTools } from './tools-cache.ts';
import type { PermissionStatus } from '../../sql/tool-permissions.ts';

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
  ids: { agencyId: string; agentId: string; serverId: string },
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
  await setAgentMcpServerStatus(deps.db, { agencyId: server.agencyId, serverId: server.id, status, checkedAt: deps.clock() });
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
