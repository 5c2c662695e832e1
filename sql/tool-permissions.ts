import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';

/**
 * The permission levels of a tool, the one list every other statement of them derives from: the
 * zod row schemas here and in sql/agent-mcp-server-tools.ts, the route schema `PermissionStatus`
 * (app/tools/schemas.ts) and through it the dashboard's generated types. The CHECK of migration
 * 0200 cannot follow it (released migrations are fixed), so test/tools/permission-levels.test.ts
 * asserts that the database allows exactly these.
 */
export const PERMISSION_STATUSES = ['always_allow', 'needs_approval', 'blocked'] as const;
export type PermissionStatus = (typeof PERMISSION_STATUSES)[number];
/** The statuses of the tools offered to the model (every one but `blocked`). */
export const OFFERED_STATUSES = ['always_allow', 'needs_approval'] as const satisfies readonly PermissionStatus[];
export type OfferedStatus = (typeof OFFERED_STATUSES)[number];

/** A row of an agent's tool set, and an item of its answer (app/tools/schemas.ts derives the route schema from it). */
export const ToolPermission = z.strictObject({
  toolName: z.string(),
  permissionStatus: z.enum(PERMISSION_STATUSES),
  providerKey: z.string(),
});
export type ToolPermission = z.infer<typeof ToolPermission>;

/** A permission to store: `mcpServerId` is set exactly when the provider is `mcp:<serverId>`. */
export type StoredToolPermission = ToolPermission & { mcpServerId: string | null };

/**
 * Which of these MCP server ids are servers of this agent of this agency. The rows are share-locked
 * until the transaction ends, so a server cannot vanish between this check and the insert.
 */
export function findMcpServerIdsOfAgent(db: CommonQueryMethods, organizationId: string, agentId: string, serverIds: string[]) {
  return db.anyFirst(sql.type(IdRow)`
    SELECT id FROM agent_mcp_servers
    WHERE agent_id = ${agentId} AND organization_id = ${organizationId} AND id = ANY(${sql.array(serverIds, 'uuid')})
    FOR SHARE`);
}

/** Replaces the agent's whole tool set; call inside a transaction holding the agent's lock. */
export async function replaceToolPermissionsOfAgent(db: CommonQueryMethods, agentId: string, tools: StoredToolPermission[]) {
  await db.query(sql.unsafe`DELETE FROM agent_tool_permissions WHERE agent_id = ${agentId}`);
  if (tools.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO agent_tool_permissions (agent_id, tool_name, provider_key, permission_status, mcp_server_id, position)
    SELECT ${agentId}, t.tool_name, t.provider_key, t.permission_status, t.mcp_server_id, t.position
    FROM ${sql.unnest(
      tools.map((tool, position) => [tool.toolName, tool.providerKey, tool.permissionStatus, tool.mcpServerId, position]),
      ['text', 'text', 'text', 'uuid', 'int4'],
    )} AS t (tool_name, provider_key, permission_status, mcp_server_id, position)`);
}

/** The agent's tool set in the order it was given. */
export function listToolPermissionsOfAgent(db: CommonQueryMethods, agentId: string) {
  return db.any(sql.type(ToolPermission)`
    SELECT tool_name AS "toolName", permission_status AS "permissionStatus", provider_key AS "providerKey"
    FROM agent_tool_permissions WHERE agent_id = ${agentId} ORDER BY position`);
}

const OfferableTool = z.strictObject({
  toolName: z.string(),
  providerKey: z.string(),
  permissionStatus: z.enum(OFFERED_STATUSES),
  hasOverride: z.boolean(),
});
export type OfferableToolRow = z.infer<typeof OfferableTool>;

/**
 * The agent's tools that may be offered to the model (every level but `blocked`), each with
 * whether this user has an approve-always override for it, in the order of the set.
 */
export function listOfferableToolsForUser(db: CommonQueryMethods, agentId: string, userId: string | null) {
  return db.any(sql.type(OfferableTool)`
    SELECT p.tool_name AS "toolName", p.provider_key AS "providerKey", p.permission_status AS "permissionStatus",
           o.tool_name IS NOT NULL AS "hasOverride"
    FROM agent_tool_permissions p
    LEFT JOIN tool_overrides o ON o.agent_id = p.agent_id AND o.tool_name = p.tool_name AND o.user_id = ${userId}
    WHERE p.agent_id = ${agentId} AND p.permission_status <> 'blocked'
    ORDER BY p.position`);
}

/** `listOfferableToolsForUser`'s rows as one JSON array, for a statement that reads more (sql/chat-turn-reads.ts). */
export const offerableToolsJson = (agentId: string, userId: string | null) => sql.fragment`
  coalesce((SELECT json_agg(json_build_object('toolName', p.tool_name, 'providerKey', p.provider_key,
                                              'permissionStatus', p.permission_status, 'hasOverride', o.tool_name IS NOT NULL)
                            ORDER BY p.position)
            FROM agent_tool_permissions p
            LEFT JOIN tool_overrides o ON o.agent_id = p.agent_id AND o.tool_name = p.tool_name AND o.user_id = ${userId}
            WHERE p.agent_id = ${agentId} AND p.permission_status <> 'blocked'), '[]'::json)`;

/** What `offerableToolsJson` answers. */
export const OfferableToolsJson = z.array(OfferableTool);
