import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export type PendingAuthorization = {
  stateHash: Buffer;
  userId: string;
  agencyId: string;
  agentId: string;
  serverId: string;
  keyId: string;
  sealed: Buffer;
  issuer: string;
  issParameterSupported: boolean;
  clientId: string;
  tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  redirectUri: string;
  resource: string;
  scope: string | null;
  tokenEndpoint: string;
  expiresAt: Date;
};

export function insertPendingAuthorization(db: CommonQueryMethods, p: PendingAuthorization) {
  return db.query(sql.unsafe`
    INSERT INTO mcp_oauth_states (
      state_hash, user_id, agency_id, agent_id, server_id, key_id, sealed, issuer,
      iss_parameter_supported, client_id, token_endpoint_auth_method, redirect_uri, resource,
      scope, token_endpoint, expires_at)
    VALUES (
      ${sql.binary(p.stateHash)}, ${p.userId}, ${p.agencyId}, ${p.agentId}, ${p.serverId}, ${p.keyId},
      ${sql.binary(p.sealed)}, ${p.issuer}, ${p.issParameterSupported}, ${p.clientId},
      ${p.tokenEndpointAuthMethod}, ${p.redirectUri}, ${p.resource}, ${p.scope}, ${p.tokenEndpoint},
      ${sql.timestamp(p.expiresAt)})`);
}

/** Pending authorizations past their expiry are useless; initiate clears them as it goes. */
export function deleteExpiredAuthorizations(db: CommonQueryMethods, now: Date) {
  return db.query(sql.unsafe`DELETE FROM mcp_oauth_states WHERE expires_at <= ${sql.timestamp(now)}`);
}

const TakenAuthorization = z.strictObject({
  userId: z.string(),
  agencyId: z.string(),
  agentId: z.string(),
  serverId: z.string(),
  keyId: z.string(),
  sealed: z.instanceof(Buffer),
  issuer: z.string(),
  issParameterSupported: z.boolean(),
  clientId: z.string(),
  tokenEndpointAuthMethod: z.enum(['none', 'client_secret_basic', 'client_secret_post']),
  redirectUri: z.string(),
  resource: z.string(),
  scope: z.string().nullable(),
  tokenEndpoint: z.string(),
  expired: z.boolean(),
});
export type TakenAuthorization = z.infer<typeof TakenAuthorization>;

/**
 * Takes (deletes and answers) the caller's pending authorization with this state hash: a
 * state is used at most once, also under concurrent callbacks. Another user's state is
 * neither answered nor consumed. An expired row is taken too, and reported as `expired`.
 */
export function takePendingAuthorization(db: CommonQueryMethods, stateHash: Buffer, userId: string, now: Date) {
  return db.maybeOne(sql.type(TakenAuthorization)`
    DELETE FROM mcp_oauth_states
    WHERE state_hash = ${sql.binary(stateHash)} AND user_id = ${userId}
    RETURNING user_id AS "userId", agency_id AS "agencyId", agent_id AS "agentId", server_id AS "serverId",
              key_id AS "keyId", sealed, issuer, iss_parameter_supported AS "issParameterSupported",
              client_id AS "clientId", token_endpoint_auth_method AS "tokenEndpointAuthMethod",
              redirect_uri AS "redirectUri", resource, scope, token_endpoint AS "tokenEndpoint",
              expires_at <= ${sql.timestamp(now)} AS expired`);
}

/**
 * Takes the pending authorization with this state hash whoever started it (a browser landing
 * carries no access token; the 256-bit state is the proof). Single use like the above.
 */
export function takePendingAuthorizationByState(db: CommonQueryMethods, stateHash: Buffer, now: Date) {
  return db.maybeOne(sql.type(TakenAuthorization)`
    DELETE FROM mcp_oauth_states
    WHERE state_hash = ${sql.binary(stateHash)}
    RETURNING user_id AS "userId", agency_id AS "agencyId", agent_id AS "agentId", server_id AS "serverId",
              key_id AS "keyId", sealed, issuer, iss_parameter_supported AS "issParameterSupported",
              client_id AS "clientId", token_endpoint_auth_method AS "tokenEndpointAuthMethod",
              redirect_uri AS "redirectUri", resource, scope, token_endpoint AS "tokenEndpoint",
              expires_at <= ${sql.timestamp(now)} AS expired`);
}
