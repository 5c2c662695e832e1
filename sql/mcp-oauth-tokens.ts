import { sql, type CommonQueryMethods } from 'slonik';

/** Stores (or replaces) the sealed tokens of an agent MCP server. */
export function upsertServerOAuthTokens(
  db: CommonQueryMethods,
  row: {
    serverId: string;
    agencyId: string;
    userId: string;
    issuer: string;
    clientId: string;
    tokenEndpoint: string;
    resource: string;
    keyId: string;
    sealed: Buffer;
    now: Date;
  },
) {
  return db.query(sql.unsafe`
    INSERT INTO agent_mcp_server_oauth_tokens (
      server_id, agency_id, user_id, issuer, client_id, token_endpoint, resource, key_id, sealed,
      created_at, updated_at)
    VALUES (
      ${row.serverId}, ${row.agencyId}, ${row.userId}, ${row.issuer}, ${row.clientId}, ${row.tokenEndpoint},
      ${row.resource}, ${row.keyId}, ${sql.binary(row.sealed)}, ${sql.timestamp(row.now)}, ${sql.timestamp(row.now)})
    ON CONFLICT (server_id) DO UPDATE SET
      user_id = EXCLUDED.user_id, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
      token_endpoint = EXCLUDED.token_endpoint, resource = EXCLUDED.resource,
      key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
    WHERE agent_mcp_server_oauth_tokens.agency_id = EXCLUDED.agency_id`);
}
