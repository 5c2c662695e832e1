import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { agentInUse } from './agents.ts';

export type PendingAuthorization = {
  stateHash: Buffer;
  userId: string;
  organizationId: string;
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
  /** SHA-256 of the value initiate answered to the front-end that started the flow. */
  browserKeyHash: Buffer;
};

export function insertPendingAuthorization(db: CommonQueryMethods, p: PendingAuthorization) {
  return db.query(sql.unsafe`
    INSERT INTO mcp_oauth_states (
      state_hash, user_id, organization_id, agent_id, server_id, key_id, sealed, issuer,
      iss_parameter_supported, client_id, token_endpoint_auth_method, redirect_uri, resource,
      scope, token_endpoint, expires_at, browser_key_hash)
    VALUES (
      ${sql.binary(p.stateHash)}, ${p.userId}, ${p.organizationId}, ${p.agentId}, ${p.serverId}, ${p.keyId},
      ${sql.binary(p.sealed)}, ${p.issuer}, ${p.issParameterSupported}, ${p.clientId},
      ${p.tokenEndpointAuthMethod}, ${p.redirectUri}, ${p.resource}, ${p.scope}, ${p.tokenEndpoint},
      ${sql.timestamp(p.expiresAt)}, ${sql.binary(p.browserKeyHash)})`);
}

/** Pending authorizations past their expiry (and their hand-off's) are useless; initiate clears them as it goes. */
export function deleteExpiredAuthorizations(db: CommonQueryMethods, now: Date) {
  return db.query(sql.unsafe`
    DELETE FROM mcp_oauth_states
    WHERE expires_at <= ${sql.timestamp(now)} AND (handoff_expires_at IS NULL OR handoff_expires_at <= ${sql.timestamp(now)})`);
}

/** The flow's agent is in use: a flow of an archived agent is unknown to every step (never taken, never landed). */
const ofAgentInUse = agentInUse(sql.identifier(['mcp_oauth_states', 'agent_id']), sql.identifier(['mcp_oauth_states', 'organization_id']));

const TakenAuthorization = z.strictObject({
  userId: z.string(),
  organizationId: z.string(),
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
 * state is used at most once, also under concurrent callbacks. Another user's state, and one
 * of an archived agent, is neither answered nor consumed. An expired row is taken too, and
 * reported as `expired`.
 */
export function takePendingAuthorization(db: CommonQueryMethods, stateHash: Buffer, userId: string, now: Date) {
  return db.maybeOne(sql.type(TakenAuthorization)`
    DELETE FROM mcp_oauth_states
    WHERE state_hash = ${sql.binary(stateHash)} AND user_id = ${userId} AND ${ofAgentInUse}
    RETURNING user_id AS "userId", organization_id AS "organizationId", agent_id AS "agentId", server_id AS "serverId",
              key_id AS "keyId", sealed, issuer, iss_parameter_supported AS "issParameterSupported",
              client_id AS "clientId", token_endpoint_auth_method AS "tokenEndpointAuthMethod",
              redirect_uri AS "redirectUri", resource, scope, token_endpoint AS "tokenEndpoint",
              expires_at <= ${sql.timestamp(now)} AS expired`);
}

const Landed = z.strictObject({ agentId: z.string(), serverId: z.string() });

/**
 * A browser landed with this state: records the authorization response (sealed) and the hash
 * of a one-time hand-off on the pending flow, once. Answers the flow's agent and server, or
 * null for a state that is unknown, expired, already landed or of an archived agent (the first landing wins: a
 * later one, e.g. with a code obtained elsewhere, cannot replace the response).
 */
export function recordLanding(
  db: CommonQueryMethods,
  landing: { stateHash: Buffer; handoffHash: Buffer; keyId: string; sealed: Buffer; handoffExpiresAt: Date; now: Date },
) {
  return db.maybeOne(sql.type(Landed)`
    UPDATE mcp_oauth_states
    SET handoff_hash = ${sql.binary(landing.handoffHash)}, landing_key_id = ${landing.keyId},
        landing_sealed = ${sql.binary(landing.sealed)}, handoff_expires_at = ${sql.timestamp(landing.handoffExpiresAt)}
    WHERE state_hash = ${sql.binary(landing.stateHash)} AND handoff_hash IS NULL
      AND expires_at > ${sql.timestamp(landing.now)} AND ${ofAgentInUse}
    RETURNING agent_id AS "agentId", server_id AS "serverId"`);
}

const TakenLanding = z.strictObject({
  ...TakenAuthorization.shape,
  stateHash: z.instanceof(Buffer),
  landingKeyId: z.string(),
  landingSealed: z.instanceof(Buffer),
});
export type TakenLanding = z.infer<typeof TakenLanding>;

/**
 * Takes (deletes and answers) the landed flow with this hand-off, started by this user with
 * this browser key, in one statement: a hand-off is completed at most once. Another user's
 * hand-off, one presented with another key, and one of an archived agent, is neither answered
 * nor consumed. `expired`
 * is the hand-off's expiry; an expired one is taken too.
 */
export function takeLandedAuthorization(
  db: CommonQueryMethods,
  handoff: { handoffHash: Buffer; userId: string; browserKeyHash: Buffer; now: Date },
) {
  return db.maybeOne(sql.type(TakenLanding)`
    DELETE FROM mcp_oauth_states
    WHERE handoff_hash = ${sql.binary(handoff.handoffHash)} AND user_id = ${handoff.userId}
      AND browser_key_hash = ${sql.binary(handoff.browserKeyHash)} AND ${ofAgentInUse}
    RETURNING user_id AS "userId", organization_id AS "organizationId", agent_id AS "agentId", server_id AS "serverId",
              key_id AS "keyId", sealed, issuer, iss_parameter_supported AS "issParameterSupported",
              client_id AS "clientId", token_endpoint_auth_method AS "tokenEndpointAuthMethod",
              redirect_uri AS "redirectUri", resource, scope, token_endpoint AS "tokenEndpoint",
              handoff_expires_at <= ${sql.timestamp(handoff.now)} AS expired,
              state_hash AS "stateHash", landing_key_id AS "landingKeyId", landing_sealed AS "landingSealed"`);
}
