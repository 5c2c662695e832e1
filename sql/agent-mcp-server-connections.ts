import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { SERVER_STATUSES } from './agent-mcp-servers.ts';

const ServerConnectionRow = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  agentId: z.string(),
  url: z.string(),
  transportType: z.enum(['http', 'sse']),
  authType: z.enum(['none', 'static_headers', 'oauth']),
  availableMcpId: z.string().nullable(),
  variantType: z.enum(['free', 'apikey', 'oauth']).nullable(),
  status: z.enum(SERVER_STATUSES),
  credentialsKeyId: z.string().nullable(),
  credentials: z.instanceof(Buffer).nullable(),
  /** Changes whenever the server is edited: part of the tool cache key. */
  updatedAt: z.string(),
});
export type ServerConnectionRow = z.infer<typeof ServerConnectionRow>;

const serverConnectionColumns = sql.fragment`
  id, organization_id AS "organizationId", agent_id AS "agentId", url, transport_type AS "transportType", auth_type AS "authType",
  available_mcp_id AS "availableMcpId", variant_type AS "variantType", status, credentials_key_id AS "credentialsKeyId",
  credentials, updated_at AS "updatedAt"`;

/**
 * What is needed to talk to one MCP server of the agency, with its sealed credentials (never
 * answered to a client). `agentId` narrows to one agent's server when given.
 */
export function findServerConnection(db: CommonQueryMethods, ids: { organizationId: string; serverId: string; agentId?: string }) {
  return db.maybeOne(sql.type(ServerConnectionRow)`
    SELECT ${serverConnectionColumns}
    FROM agent_mcp_servers
    WHERE id = ${ids.serverId} AND organization_id = ${ids.organizationId}
      ${ids.agentId === undefined ? sql.fragment`` : sql.fragment`AND agent_id = ${ids.agentId}`}`);
}

/** Every MCP server of one agent of the agency, as `findServerConnection` reads one (a chat turn's tool map). */
export function listAgentServerConnections(db: CommonQueryMethods, ids: { organizationId: string; agentId: string }) {
  return db.any(sql.type(ServerConnectionRow)`
    SELECT ${serverConnectionColumns}
    FROM agent_mcp_servers
    WHERE organization_id = ${ids.organizationId} AND agent_id = ${ids.agentId}`);
}

/**
 * `listAgentServerConnections`' rows as one JSON array, for a statement that reads more
 * (sql/chat-turn-reads.ts): the sealed credentials as hex, `updatedAt` read into the ISO text the
 * row form's type parser makes (app/db/pool.ts: it is part of the tool cache key).
 */
export const agentServerConnectionsJson = (ids: { organizationId: string; agentId: string }) => sql.fragment`
  coalesce((SELECT json_agg(json_build_object('id', id, 'organizationId', organization_id, 'agentId', agent_id, 'url', url,
                                              'transportType', transport_type, 'authType', auth_type, 'availableMcpId', available_mcp_id,
                                              'variantType', variant_type, 'status', status, 'credentialsKeyId', credentials_key_id,
                                              'credentials', encode(credentials, 'hex'), 'updatedAt', updated_at))
            FROM agent_mcp_servers
            WHERE organization_id = ${ids.organizationId} AND agent_id = ${ids.agentId}), '[]'::json)`;

/** What `agentServerConnectionsJson` answers, read as `listAgentServerConnections`' rows. */
export const AgentServerConnectionsJson = z.array(
  ServerConnectionRow.extend({
    credentials: z
      .string()
      .nullable()
      .transform((hex) => (hex === null ? null : Buffer.from(hex, 'hex'))),
    updatedAt: z.string().transform((at) => new Date(at).toISOString()),
  }),
);

/** The same row, locked for an edit until the transaction ends. */
export function lockServerConnection(db: CommonQueryMethods, ids: { organizationId: string; serverId: string; agentId: string }) {
  return db.maybeOne(sql.type(ServerConnectionRow)`
    SELECT ${serverConnectionColumns}
    FROM agent_mcp_servers
    WHERE id = ${ids.serverId} AND organization_id = ${ids.organizationId} AND agent_id = ${ids.agentId}
    FOR UPDATE`);
}

export type ServerEdit = {
  name?: string;
  url?: string;
  authType?: 'none' | 'static_headers' | 'oauth';
  /** undefined: unchanged; null: removed; else already sealed. */
  credentials?: { keyId: string; ciphertext: Buffer } | null;
  /** Set when what the status describes changed (URL or credentials). */
  status?: 'unknown';
  now: Date;
};

/** Applies an edit to the server; its tool permissions and overrides are other tables' rows and stay. */
export function updateServerConnection(db: CommonQueryMethods, serverId: string, edit: ServerEdit) {
  const sets = [
    edit.name !== undefined && sql.fragment`name = ${edit.name}`,
    edit.url !== undefined && sql.fragment`url = ${edit.url}`,
    edit.authType !== undefined && sql.fragment`auth_type = ${edit.authType}`,
    edit.credentials !== undefined &&
      sql.fragment`credentials = ${edit.credentials ? sql.binary(edit.credentials.ciphertext) : null},
                   credentials_key_id = ${edit.credentials?.keyId ?? null}`,
    edit.status !== undefined && sql.fragment`status = ${edit.status}, last_checked_at = NULL`,
    sql.fragment`updated_at = ${sql.timestamp(edit.now)}`,
  ].filter((set) => set !== false);
  return db.query(sql.unsafe`UPDATE agent_mcp_servers SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${serverId}`);
}
