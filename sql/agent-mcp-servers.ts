import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';

export const SERVER_STATUSES = ['connected', 'needs_authorization', 'reauthorization_required', 'unreachable', 'unknown'] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

const AgentMcpServerRow = z.strictObject({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  url: z.string(),
  transportType: z.enum(['http', 'sse']),
  authType: z.enum(['none', 'static_headers', 'oauth']),
  availableMcpId: z.string().nullable(),
  variantType: z.enum(['free', 'apikey', 'oauth']).nullable(),
  hasCredentials: z.boolean(),
  status: z.enum(SERVER_STATUSES),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type AgentMcpServerRow = z.infer<typeof AgentMcpServerRow>;

// Credentials are never selected here: only whether there are any. An OAuth server without
// stored tokens needs authorization whatever was last observed.
const columns = sql.fragment`
  s.id, s.agent_id AS "agentId", s.name, s.url, s.transport_type AS "transportType", s.auth_type AS "authType",
  s.available_mcp_id AS "availableMcpId", s.variant_type AS "variantType",
  s.credentials IS NOT NULL AS "hasCredentials",
  CASE WHEN s.auth_type = 'oauth' AND s.status <> 'reauthorization_required'
            AND NOT EXISTS (SELECT 1 FROM agent_mcp_server_oauth_tokens t WHERE t.server_id = s.id)
       THEN 'needs_authorization' ELSE s.status END AS status,
  s.last_checked_at AS "lastCheckedAt", s.created_at AS "createdAt"`;

export type NewAgentMcpServer = {
  id: string;
  organizationId: string;
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

export async function insertAgentMcpServer(db: CommonQueryMethods, server: NewAgentMcpServer) {
  await db.query(sql.unsafe`
    INSERT INTO agent_mcp_servers
      (id, organization_id, agent_id, name, url, transport_type, auth_type, available_mcp_id, variant_type,
       credentials, credentials_key_id)
    VALUES (${server.id}, ${server.organizationId}, ${server.agentId}, ${server.name}, ${server.url},
            ${server.transportType}, ${server.authType}, ${server.availableMcpId}, ${server.variantType},
            ${server.credentials ? sql.binary(server.credentials.ciphertext) : null}, ${server.credentials?.keyId ?? null})`);
  return db.one(sql.type(AgentMcpServerRow)`SELECT ${columns} FROM agent_mcp_servers s WHERE s.id = ${server.id}`);
}

/** The agent's MCP servers, oldest first. */
export function listAgentMcpServers(db: CommonQueryMethods, organizationId: string, agentId: string) {
  return db.any(sql.type(AgentMcpServerRow)`
    SELECT ${columns} FROM agent_mcp_servers s
    WHERE s.organization_id = ${organizationId} AND s.agent_id = ${agentId}
    ORDER BY s.created_at, s.id`);
}

/** One MCP server of the agent, or null (also for another agency's). */
export function findAgentMcpServer(db: CommonQueryMethods, organizationId: string, agentId: string, serverId: string) {
  return db.maybeOne(sql.type(AgentMcpServerRow)`
    SELECT ${columns} FROM agent_mcp_servers s
    WHERE s.id = ${serverId} AND s.organization_id = ${organizationId} AND s.agent_id = ${agentId}`);
}

/** Deletes the agent's server; false when the agent has no server with this id. */
export async function deleteAgentMcpServer(db: CommonQueryMethods, organizationId: string, agentId: string, serverId: string) {
  const deleted = await db.maybeOne(sql.type(IdRow)`
    DELETE FROM agent_mcp_servers
    WHERE id = ${serverId} AND agent_id = ${agentId} AND organization_id = ${organizationId}
    RETURNING id`);
  return deleted !== null;
}

/** Records what talking to the server (or to its authorization server) just showed. */
export function setAgentMcpServerStatus(
  db: CommonQueryMethods,
  change: { organizationId: string; serverId: string; status: ServerStatus; checkedAt: Date },
) {
  return db.query(sql.unsafe`
    UPDATE agent_mcp_servers SET status = ${change.status}, last_checked_at = ${sql.timestamp(change.checkedAt)}
    WHERE id = ${change.serverId} AND organization_id = ${change.organizationId}`);
}
