import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const AgentMcpServerRow = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  url: z.string(),
  transportType: z.enum(['http', 'sse']),
  authType: z.enum(['none', 'static_headers', 'oauth']),
  availableMcpId: z.string().nullable(),
  variantType: z.enum(['free', 'apikey', 'oauth']).nullable(),
  hasCredentials: z.boolean(),
  createdAt: z.string(),
});
export type AgentMcpServerRow = z.infer<typeof AgentMcpServerRow>;

// Credentials are never selected here: only whether there are any.
const columns = sql.fragment`
  id, agent_id AS "agentId", name, url, transport_type AS "transportType", auth_type AS "authType",
  available_mcp_id AS "availableMcpId", variant_type AS "variantType",
  credentials IS NOT NULL AS "hasCredentials", created_at AS "createdAt"`;

export type NewAgentMcpServer = {
  id: string;
  agencyId: string;
  agentId: string;
  name: string;
  url: string;
  transportType: 'http' | 'sse';
  authType: 'none' | 'static_headers' | 'oauth';
  availableMcpId: string | null;
  variantType: 'free' | 'apikey' | 'oauth' | null;
  /** Already sealed (app/crypto/credentials.ts); null when there are none. */
  credentials: { keyId: string; ciphertext: Buffer } | null;
};

export function insertAgentMcpServer(db: CommonQueryMethods, server: NewAgentMcpServer) {
  return db.one(sql.type(AgentMcpServerRow)`
    INSERT INTO agent_mcp_servers
      (id, agency_id, agent_id, name, url, transport_type, auth_type, available_mcp_id, variant_type,
       credentials, credentials_key_id)
    VALUES (${server.id}, ${server.agencyId}, ${server.agentId}, ${server.name}, ${server.url},
            ${server.transportType}, ${server.authType}, ${server.availableMcpId}, ${server.variantType},
            ${server.credentials ? sql.binary(server.credentials.ciphertext) : null}, ${server.credentials?.keyId ?? null})
    RETURNING ${columns}`);
}

/** The agent's MCP servers, oldest first. */
export function listAgentMcpServers(db: CommonQueryMethods, agencyId: string, agentId: string) {
  return db.any(sql.type(AgentMcpServerRow)`
    SELECT ${columns} FROM agent_mcp_servers
    WHERE agency_id = ${agencyId} AND agent_id = ${agentId}
    ORDER BY created_at, id`);
}

/** Deletes the agent's server; false when the agent has no server with this id. */
export async function deleteAgentMcpServer(db: CommonQueryMethods, agencyId: string, agentId: string, serverId: string) {
  const deleted = await db.maybeOne(sql.type(z.object({ id: z.string() }))`
    DELETE FROM agent_mcp_servers
    WHERE id = ${serverId} AND agent_id = ${agentId} AND agency_id = ${agencyId}
    RETURNING id`);
  return deleted !== null;
}
