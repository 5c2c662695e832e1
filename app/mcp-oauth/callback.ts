import { ForeignKeyIntegrityConstraintViolationError } from 'slonik';
import { takePendingAuthorization, takePendingAuthorizationByState } from '../../sql/mcp-oauth-states.ts';
import { upsertServerOAuthTokens } from '../../sql/mcp-oauth-tokens.ts';
import { userHasPermission } from '../../sql/policies.ts';
import type { AppDeps } from '../core/deps.ts';
import { forbidden, notFound, ValidationError } from '../core/errors.ts';
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

/** Who completes the flow: the bearer of an access token (API call), or nobody (a plain browser). */
export type Caller = { userId: string; agencyId: string } | undefined;

/**
 * Steps 11-14 of docs/mcp-oauth.md: take the pending authorization (single use), check `iss`
 * (RFC 9207 §2.4) before looking at anything else in the response, exchange the code and store
 * the tokens sealed, bound to the agency and the agent's MCP server.
 *
 * With a caller, only the caller's own state is taken (another user's is neither answered nor
 * consumed). Without one (a browser landing, ADR 0035), the state alone names the flow and the
 * user who started it, whose `ai.agent:update` grant is read again now: a user who lost it
 * since initiate cannot complete.
 */
export async function completeAuthorization(deps: AppDeps, caller: Caller, query: CallbackQuery): Promise<CompletedAuthorization> {
  const now = deps.clock();
  const stateHash = hashState(query.state);
  const pending = caller
    ? await takePendingAuthorization(deps.db, stateHash, caller.userId, now)
    : await takePendingAuthorizationByState(deps.db, stateHash, now);
  if (!pending || pending.expired || (caller && pending.agencyId !== caller.agencyId)) throw invalidState();
  if (!caller && !(await userHasPermission(deps.db, pending.userId, 'ai.agent', 'update'))) throw forbidden();

  if (query.iss !== undefined && query.iss !== pending.issuer) {
    throw issuerMismatch('callback', 'the iss parameter names another issuer');
  }
  if (query.iss === undefined && pending.issParameterSupported) {
    throw issuerMismatch('callback', 'the iss parameter is missing although the authorization server supports it');
  }
  if (query.error !== undefined) throw authorizationDenied(query.error, query.error_description);
  if (query.code === undefined || query.code === '') {
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
      code: query.code,
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
