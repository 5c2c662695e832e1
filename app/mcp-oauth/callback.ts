import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ForeignKeyIntegrityConstraintViolationError } from 'slonik';
import { takePendingAuthorization, type TakenAuthorization } from '../../sql/mcp-oauth-states.ts';
import { upsertServerOAuthTokens } from '../../sql/mcp-oauth-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound, ValidationError } from '../core/errors.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { authorizationDenied, invalidState, issuerMismatch, step, tokenRequestFailed } from './errors.ts';
import { stateContext, type PendingSecrets } from './initiate.ts';
import { oauthFetch } from './outbound.ts';
import { FlowProvider, tokenEndpointState, tokenSetOf, type TokenSet } from './provider.ts';
import { hashState } from './state-token.ts';

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
  const client = {
    client_id: pending.clientId,
    token_endpoint_auth_method: pending.tokenEndpointAuthMethod,
    issuer: pending.issuer,
    ...(secrets.clientSecret === undefined ? {} : { client_secret: secrets.clientSecret }),
  };
  let tokens: TokenSet | undefined;
  const saveTokens = async (answer: OAuthTokens) => {
    // RFC 6749 §5.1: an omitted scope is the scope requested.
    tokens = tokenSetOf(answer, now, pending.scope ?? undefined);
    const sealed = sealJson(deps.config.credentialsKeyring, tokens, tokensContext(pending.agencyId, pending.serverId));
    // The server was deleted while the user was at the authorization server.
    await upsertServerOAuthTokens(deps.db, { ...pending, keyId: sealed.keyId, sealed: sealed.ciphertext, now }).catch((error: unknown) => {
      throw error instanceof ForeignKeyIntegrityConstraintViolationError ? notFound('MCP server') : error;
    });
  };
  // Step 4: the SDK's code exchange (PKCE verifier, `resource`, the client's authentication) with what initiate recorded.
  const refused = (detail: string) => tokenRequestFailed(`requesting the tokens: ${detail}`);
  const provider = new FlowProvider(deps, tokenEndpointState(pending.issuer, pending.tokenEndpoint, pending.resource), {
    client,
    verifier: secrets.codeVerifier,
    saveTokens,
    refused,
  });
  const exchange = { serverUrl: pending.resource, authorizationCode: response.code, fetchFn: oauthFetch(deps.config) };
  await step('requesting the tokens', () => auth(provider, exchange), tokenRequestFailed);
  if (!tokens) throw tokenRequestFailed('requesting the tokens: no tokens were issued');
  deps.logger.info({ agentId: pending.agentId, serverId: pending.serverId, issuer: pending.issuer }, 'mcp oauth connected');
  return {
    agentId: pending.agentId,
    serverId: pending.serverId,
    connected: true,
    scope: tokens.scope ?? null,
    expiresAt: tokens.expiresAt ?? null,
  };
}
