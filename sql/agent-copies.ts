import { sql, type CommonQueryMethods } from 'slonik';

/**
 * Copies the agent's tool permissions to the agent `copyId` (a copy of it in another
 * organization), in the same order, except those of its MCP servers: servers and their
 * credentials stay with the agent they were added to.
 */
export function copyToolPermissions(db: CommonQueryMethods, sourceAgentId: string, copyId: string) {
  return db.query(sql.unsafe`
    INSERT INTO agent_tool_permissions (agent_id, tool_name, provider_key, permission_status, mcp_server_id, position)
    SELECT ${copyId}, tool_name, provider_key, permission_status, NULL, position
    FROM agent_tool_permissions
    WHERE agent_id = ${sourceAgentId} AND mcp_server_id IS NULL`);
}
