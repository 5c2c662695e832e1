import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/**
 * Stores (or replaces) the sealed tokens of an agent MCP server, and marks the server
 * connected: tokens were just issued for it.
 */
export function upsertServerOAuthTokens(
  db: CommonQueryMethods,
  row: {
    serverId: string;
    organizationId: string;
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
    WITH saved AS (
      INSERT INTO agent_mcp_server_oauth_tokens (
        server_id, organization_id, user_id, issuer, client_id, token_endpoint, resource, key_id, sealed,
        created_at, updated_at)
      VALUES (
        ${row.serverId}, ${row.organizationId}, ${row.userId}, ${row.issuer}, ${row.clientId}, ${row.tokenEndpoint},
        ${row.resource}, ${row.keyId}, ${sql.binary(row.sealed)}, ${sql.timestamp(row.now)}, ${sql.timestamp(row.now)})
      ON CONFLICT (server_id) DO UPDATE SET
        user_id = EXCLUDED.user_id, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
        token_endpoint = EXCLUDED.token_endpoint, resource = EXCLUDED.resource,
        key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
      WHERE agent_mcp_server_oauth_tokens.organization_id = EXCLUDED.organization_id
      RETURNING server_id, organization_id)
    UPDATE agent_mcp_servers s SET status = 'connected', last_checked_at = ${sql.timestamp(row.now)}
    FROM saved WHERE s.id = saved.server_id AND s.organization_id = saved.organization_id`);
}

const StoredTokensRow = z.strictObject({
  issuer: z.string(),
  clientId: z.string(),
  tokenEndpoint: z.string(),
  resource: z.string(),
  keyId: z.string(),
  sealed: z.instanceof(Buffer),
  /** The authorization server refused the refresh token before: do not present it again. */
  reauthorizationRequired: z.boolean(),
});
export type StoredTokensRow = z.infer<typeof StoredTokensRow>;

const storedTokenColumns = sql.fragment`
  t.issuer, t.client_id AS "clientId", t.token_endpoint AS "tokenEndpoint", t.resource, t.key_id AS "keyId", t.sealed,
  s.status = 'reauthorization_required' AS "reauthorizationRequired"`;

/** The sealed tokens of the agency's server, or null when it was never authorized. */
export function findServerOAuthTokens(db: CommonQueryMethods, organizationId: string, serverId: string) {
  return db.maybeOne(sql.type(StoredTokensRow)`
    SELECT ${storedTokenColumns}
    FROM agent_mcp_server_oauth_tokens t JOIN agent_mcp_servers s ON s.id = t.server_id
    WHERE t.server_id = ${serverId} AND t.organization_id = ${organizationId}`);
}

/**
 * The same row, locked until the transaction ends: the refresh of one server's tokens is
 * single-flight across processes (ADR 0070). Waits at most `lockTimeoutMs` for the lock.
 */
export async function lockServerOAuthTokens(db: CommonQueryMethods, organizationId: string, serverId: string, lockTimeoutMs: number) {
  // SET LOCAL takes no bind parameters; set_config(..., true) is its parameterised form.
  await db.query(sql.unsafe`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(lockTimeoutMs))}ms`}, true)`);
  return db.maybeOne(sql.type(StoredTokensRow)`
    SELECT ${storedTokenColumns}
    FROM agent_mcp_server_oauth_tokens t JOIN agent_mcp_servers s ON s.id = t.server_id
    WHERE t.server_id = ${serverId} AND t.organization_id = ${organizationId}
    FOR UPDATE OF t`);
}

/** Replaces the sealed tokens after a refresh (call with the row locked). */
export function updateServerOAuthTokens(
  db: CommonQueryMethods,
  row: { serverId: string; organizationId: string; keyId: string; sealed: Buffer; now: Date },
) {
  return db.query(sql.unsafe`
    UPDATE agent_mcp_server_oauth_tokens
    SET key_id = ${row.keyId}, sealed = ${sql.binary(row.sealed)}, updated_at = ${sql.timestamp(row.now)}
    WHERE server_id = ${row.serverId} AND organization_id = ${row.organizationId}`);
}

/** Forgets the tokens (the server's URL changed: they were issued for another resource). */
export function deleteServerOAuthTokens(db: CommonQueryMethods, organizationId: string, serverId: string) {
  return db.query(sql.unsafe`
    DELETE FROM agent_mcp_server_oauth_tokens WHERE server_id = ${serverId} AND organization_id = ${organizationId}`);
}
