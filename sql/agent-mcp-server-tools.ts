import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PERMISSION_STATUSES } from './tool-permissions.ts';

const ServerToolPermission = z.strictObject({ toolName: z.string(), permissionStatus: z.enum(PERMISSION_STATUSES) });

/** The agent's permissions for tools of one of its MCP servers (provider `mcp:<serverId>`). */
export function listPermissionsOfServerTools(db: CommonQueryMethods, agentId: string, serverId: string) {
  return db.any(sql.type(ServerToolPermission)`
    SELECT tool_name AS "toolName", permission_status AS "permissionStatus"
    FROM agent_tool_permissions
    WHERE agent_id = ${agentId} AND mcp_server_id = ${serverId}`);
}
