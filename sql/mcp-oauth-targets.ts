import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const OAuthTarget = z.strictObject({
  agentId: z.string(),
  server: z
    .strictObject({
      id: z.string(),
      url: z.string(),
      authType: z.string(),
    })
    .nullable(),
});
export type OAuthTarget = z.infer<typeof OAuthTarget>;

/**
 * The agent of the caller's agency and, when it has one with this id, its MCP server.
 * No row: the agent is missing or another agency's; `server: null`: the server is.
 */
export function findAgentMcpServerInAgency(db: CommonQueryMethods, ids: { agencyId: string; agentId: string; serverId: string }) {
  return db.maybeOne(sql.type(OAuthTarget)`
    SELECT a.id AS "agentId",
           CASE WHEN s.id IS NULL THEN NULL
                ELSE json_build_object('id', s.id, 'url', s.url, 'authType', s.auth_type) END AS server
    FROM agents a
    LEFT JOIN agent_mcp_servers s ON s.agent_id = a.id AND s.id = ${ids.serverId} AND s.agency_id = a.agency_id
    WHERE a.id = ${ids.agentId} AND a.agency_id = ${ids.agencyId}`);
}
