import { ForeignKeyIntegrityConstraintViolationError } from 'slonik';
import { takePendingAuthorization, type TakenAuthorization } from '../../sql/mcp-oauth-states.ts';
import { upsertServerOAuthTokens } from '../../sql/mcp-oauth-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound, ValidationError } from '../core/errors.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { authorizationDenied, invalidState, issuerMismatch } from './errors.ts';
import { stateContext, type PendingSecrets } from './initiate.ts';
import { outboundOptions } from './outbound.ts';
import { hashState } from './state-token.ts';
import { exchangeAuthorizationCode } from './token-exchange.ts';

export type CallbackQuery = {
  state: string;
  code?: string;
  iss?: string;
  error?: string;
  error_description?: string;
};

export type CompletedAuthorization = {
  agentId: string;
  serverId: string;
  connected: true;
  scope: string | null;
  expiresAt: string | null;
};

export const tokensContext = (agencyId: string, serverId: string) => `agency:${agencyId}/server:${serverId}/oauth-tokens`;

/** The caller of the JSON callback: the bearer of an access token. */
export type Caller = { userId: string; agencyId: string };

/** What the authorization server sent back to the redirect URI (RFC 6749 §4.1.2, RFC 9207). */
export type AuthorizationResponse = { code?: string; iss?: string; error?: string; errorDescription?: string };

export const responseOf = (query: CallbackQuery): AuthorizationResponse => ({
  code: query.code,
  iss: query.iss,
  error: query.error,
  errorDescription: query.error_description,
});

/**
 * The callback called with an access token (ADR 0035): only the caller's own state is taken
 * (another user's is neither answered nor consumed), then the flow completes at once.
 */
export async function completeAuthorization(deps: AppDeps, caller: Caller, query: CallbackQuery): Promise<CompletedAuthorization> {
  const now = deps.clock();
  const stateHash = hashState(query.state);
  const pending = await takePendingAuthorization(deps.db, stateHash, caller.userId, now);
  if (!pending || pending.expired || pending.agencyId !== caller.agencyId) throw invalidState();
  return redeemAuthorizationResponse(deps, pending, stateHash, responseOf(query), now);
}

/**
 * Steps 12-14 of docs/mcp-oauth.md for a pending authorization already taken (single use):
 * check `iss` (RFC 9207 §2.4) before looking at anything else in the response, exchange the
 * code and store the tokens sealed, bound to the agency and the agent's MCP server.
 */
export async function redeemAuthorizationResponse(
  deps: AppDeps,
  pending: TakenAuthorization,
  stateHash: Buffer,
  response: AuthorizationResponse,
  now: Date,
): Promise<CompletedAuthorization> {
  if (response.iss !== undefined && response.iss !== pending.issuer) {
    throw issuerMismatch('callback', 'the iss parameter names another issuer');
  }
  if (response.iss === undefined && pending.issParameterSupported) {
    throw issuerMismatch('callback', 'the iss parameter is missing although the authorization server supports it');
  }
  if (response.error !== undefined) throw authorizationDenied(response.error, response.errorDescription);
  if (response.code === undefined || response.code === '') {
    throw new ValidationError([{ path: ['query', 'code'], message: 'Required' }]);
  }

  const secrets = openJson<PendingSecrets>(
    deps.config.credentialsKeyring,
    { keyId: pending.keyId, ciphertext: pending.sealed },
    stateContext(stateHash),
  );
  const tokens = await exchangeAuthorizationCode(
    {
      tokenEndpoint: pending.tokenEndpoint,
      code: response.code,
      codeVerifier: secrets.codeVerifier,
      redirectUri: pending.redirectUri,
      resource: pending.resource,
      client: {
        clientId: pending.clientId,
        tokenEndpointAuthMethod: pending.tokenEndpointAuthMethod,
        ...(secrets.clientSecret === undefined ? {} : { clientSecret: secrets.clientSecret }),
      },
    },
    now,
    outboundOptions(deps.config),
  );
  // RFC 6749 §5.1: an omitted scope is the scope requested.
  const scope = tokens.scope ?? pending.scope ?? undefined;
  const sealed = sealJson(
    deps.config.credentialsKeyring,
    { ...tokens, ...(scope === undefined ? {} : { scope }) },
    tokensContext(pending.agencyId, pending.serverId),
  );
  try {
    await upsertServerOAuthTokens(deps.db, {
      serverId: pending.serverId,
      agencyId: pending.agencyId,
      userId: pending.userId,
      issuer: pending.issuer,
      clientId: pending.clientId,
      tokenEndpoint: pending.tokenEndpoint,
      resource: pending.resource,
      keyId: sealed.keyId,
      sealed: sealed.ciphertext,
      now,
    });
  } catch (error) {
    // The server was deleted while the user was at the authorization server.
    if (error instanceof ForeignKeyIntegrityConstraintViolationError) throw notFound('MCP server');
    throw error;
  }
  deps.logger.info({ agentId: pending.agentId, serverId: pending.serverId, issuer: pending.issuer }, 'mcp oauth connected');
  return {
    agentId: pending.agentId,
    serverId: pending.serverId,
    connected: true,
    scope: scope ?? null,
    expiresAt: tokens.expiresAt ?? null,
  };
}
