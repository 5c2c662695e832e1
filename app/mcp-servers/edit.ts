import type { CommonQueryMethods } from 'slonik';
import { lockServerConnection, updateServerConnection, type ServerEdit } from '../../sql/agent-mcp-server-connections.ts';
import { findAgentMcpServer } from '../../sql/agent-mcp-servers.ts';
import { findAvailableMcp } from '../../sql/available-mcps.ts';
import { deleteServerOAuthTokens } from '../../sql/mcp-oauth-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound, ValidationError } from '../core/errors.ts';
import { sealJson } from '../crypto/credentials.ts';
import type { Variant } from '../mcp-catalog/schemas.ts';
import { credentialsForVariant, customCredentials } from './credentials.ts';
import { checkServerUrlToSave, credentialsContext } from './provision.ts';
import type { EditMcpServerBody } from './schemas.ts';

/**
 * PATCH /ai/agents/:agentId/mcp-servers/:serverId, for an agent the route's scope found in the
 * agency; the server row is locked for the edit (not the agent: an edit touches one server). The server keeps its id, so the tool
 * permissions (`mcp:<serverId>`) and overrides of its tools stay. Rules as on creation:
 * - `url` passes the URL policy (400 at `url`); a catalog server's URL must stay its variant's;
 *   a new URL of an OAuth server drops its tokens (they were issued for the old resource);
 *   a URL on another origin drops the stored credentials unless the same PATCH gives new ones
 *   (they were given for the old host, and would be sent to the new one);
 * - `credentials` replace the stored ones whole: a catalog server's are checked against its
 *   variant (400 unknown key, 422 `missingFields`); a custom server's are headers, and giving
 *   none makes it `none`;
 * - a changed URL or credentials resets the status to `unknown` (never checked).
 */
export async function editMcpServer(
  deps: AppDeps,
  ids: { organizationId: string; agentId: string; serverId: string },
  body: EditMcpServerBody,
) {
  if (body.url !== undefined) checkServerUrlToSave(deps, body.url);
  return deps.db.transaction(async (tx) => {
    const server = await lockServerConnection(tx, ids);
    if (!server) throw notFound('MCP server');
    const variant = server.availableMcpId === null ? undefined : await variantOf(tx, server.availableMcpId, server.variantType);
    const edit: ServerEdit = { now: deps.clock() };
    if (body.name !== undefined) edit.name = body.name.trim();
    if (body.url !== undefined && body.url !== server.url) {
      if (variant && body.url !== variant.url) {
        throw new ValidationError([{ path: ['url'], message: `must be the catalog variant's URL ${variant.url}` }]);
      }
      edit.url = body.url;
      edit.status = 'unknown';
      if (server.authType === 'oauth') await deleteServerOAuthTokens(tx, ids.organizationId, ids.serverId);
      // Credentials stored for one host never follow the URL to another origin (docs/mcp.md, Decisions).
      if (body.credentials === undefined && server.credentials !== null && new URL(body.url).origin !== new URL(server.url).origin) {
        edit.credentials = null;
        if (!variant && server.authType !== 'oauth') edit.authType = 'none';
      }
    }
    if (body.credentials !== undefined) {
      const credentials = variant ? credentialsForVariant(variant, body.credentials) : customCredentials(body.credentials);
      edit.credentials = credentials
        ? sealJson(deps.config.credentialsKeyring, credentials, credentialsContext(ids.organizationId, ids.serverId))
        : null;
      if (!variant && server.authType !== 'oauth') edit.authType = credentials ? 'static_headers' : 'none';
      edit.status = 'unknown';
    }
    await updateServerConnection(tx, ids.serverId, edit);
    return (await findAgentMcpServer(tx, ids.organizationId, ids.agentId, ids.serverId))!;
  });
}

/** The catalog variant a server was added from, while its entry is stored (soft-deleted too). */
async function variantOf(db: CommonQueryMethods, entryId: string, type: string | null) {
  const entry = await findAvailableMcp(db, entryId);
  return (entry?.variants as Variant[] | undefined)?.find((variant) => variant.type === type);
}
