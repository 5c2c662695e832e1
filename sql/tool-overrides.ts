import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { agentInUse } from './agents.ts';

const ToolOverride = z.strictObject({ toolName: z.string(), createdAt: z.string() });
export type ToolOverride = z.infer<typeof ToolOverride>;

/**
 * Records the override, or finds the one already there: the row is returned either way with
 * its stored `createdAt`. `DO UPDATE` (a no-op write) rather than `DO NOTHING` makes the
 * statement return the existing row even when a concurrent transaction inserted it after
 * this statement's snapshot was taken, so concurrent repeats all see the one row.
 */
export function upsertToolOverride(db: CommonQueryMethods, userId: string, agentId: string, toolName: string) {
  return db.one(sql.type(ToolOverride)`
    INSERT INTO tool_overrides (user_id, agent_id, tool_name)
    VALUES (${userId}, ${agentId}, ${toolName})
    ON CONFLICT (user_id, agent_id, tool_name) DO UPDATE SET tool_name = EXCLUDED.tool_name
    RETURNING tool_name AS "toolName", created_at AS "createdAt"`);
}

/** Removes the user's override of this tool of an agent of this agency in use, if there is one (an archived agent's are kept). */
export async function deleteToolOverride(
  db: CommonQueryMethods,
  scope: { organizationId: string; userId: string; agentId: string },
  toolName: string,
) {
  await db.query(sql.unsafe`
    DELETE FROM tool_overrides o
    WHERE o.user_id = ${scope.userId} AND o.agent_id = ${scope.agentId} AND o.tool_name = ${toolName}
      AND ${agentInUse(sql.identifier(['o', 'agent_id']), scope.organizationId)}`);
}

/** The user's own overrides for this agent, oldest first. */
export function listToolOverridesOfUser(db: CommonQueryMethods, userId: string, agentId: string) {
  return db.any(sql.type(ToolOverride)`
    SELECT tool_name AS "toolName", created_at AS "createdAt"
    FROM tool_overrides WHERE user_id = ${userId} AND agent_id = ${agentId}
    ORDER BY created_at, tool_name`);
}
