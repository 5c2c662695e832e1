import { findServerConnection, type ServerConnectionRow } from '../../sql/agent-mcp-server-connections.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound } from '../core/errors.ts';
import { openJson } from '../crypto/credentials.ts';
import { oauthAccessToken } from '../mcp-oauth/refresh.ts';
import { credentialsContext } from '../mcp-servers/provision.ts';
import type { StoredCredentials } from '../mcp-servers/credentials.ts';

/**
 * The auth of an agent MCP server, for an agent runtime and for this service's own MCP client:
 * the request headers to send on every MCP HTTP request (never in a query string).
 */
export type McpServerAuth = {
  headers: Record<string, string>;
  /** The OAuth access token inside `headers.authorization`, to pass back as `rejectedAccessToken` after a 401. */
  accessToken?: string;
};

export type McpServerRef = { agencyId: string; serverId: string; agentId?: string };

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
    const accessToken = await oauthAccessToken(deps, { agencyId: server.agencyId, serverId: server.id }, rejectedAccessToken);
    return { headers: { authorization: `Bearer ${accessToken}` }, accessToken };
  }
  if (server.credentials === null || server.credentialsKeyId === null) return { headers: {} };
  const stored = openJson<StoredCredentials>(
    deps.config.credentialsKeyring,
    { keyId: server.credentialsKeyId, ciphertext: server.credentials },
    credentialsContext(server.agencyId, server.id),
  );
  return { headers: { ...stored.headers } };
}
