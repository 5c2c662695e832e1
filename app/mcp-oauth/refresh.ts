import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { setAgentMcpServerStatus } from '../../sql/agent-mcp-servers.ts';
import { findServerOAuthTokens, lockServerOAuthTokens, updateServerOAuthTokens, type StoredTokensRow } from '../../sql/mcp-oauth-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { authorizationRequired, serverUnauthorized } from '../mcp-client/errors.ts';
import { tokensContext } from './callback.ts';
import { refreshLockTimeout, step, tokenRequestFailed } from './errors.ts';
import { oauthFetch, outboundOptions } from './outbound.ts';
import { knownClients, tokenEndpointState, tokenSetOf, type TokenSet } from './provider.ts';

/** A token expiring within this many milliseconds is refreshed before use. */
export const REFRESH_SKEW_MS = 60_000;

/** Extra wait for the refresh lock beyond one token request's deadline (the holder's request). */
const LOCK_MARGIN_MS = 2_000;

export type OAuthServerRef = { agencyId: string; serverId: string };

/**
 * A usable access token for an OAuth agent MCP server (ADR 0070):
 * - the stored one while it is valid for more than REFRESH_SKEW_MS (no expiry: valid) and is
 *   not `rejected` (the access token the MCP server just answered 401 to);
 * - else, under the row lock of the server's tokens (single flight across processes), the
 *   stored one again if another caller refreshed meanwhile, or a refresh_token grant whose
 *   answer (with a rotated refresh token) is stored sealed before the lock is released.
 * `invalid_grant` (or no refresh token) marks the server `reauthorization_required` and answers
 * 502 `MCP.SERVER_UNAUTHORIZED`; no stored tokens answers 409 `MCP.AUTHORIZATION_REQUIRED`.
 */
export async function oauthAccessToken(deps: AppDeps, ref: OAuthServerRef, rejected?: string): Promise<string> {
  const row = await findServerOAuthTokens(deps.db, ref.agencyId, ref.serverId);
  if (!row) throw authorizationRequired();
  const stored = open(deps, ref, row);
  if (usable(stored, deps.clock(), rejected)) return stored.accessToken;

  const options = outboundOptions(deps.config);
  const outcome = await singleFlight(() =>
    deps.db.transaction(async (tx) => {
      const locked = await lockServerOAuthTokens(tx, ref.agencyId, ref.serverId, options.timeoutMs + LOCK_MARGIN_MS);
      if (!locked) return { kind: 'gone' as const };
      const current = open(deps, ref, locked);
      if (usable(current, deps.clock(), rejected)) return { kind: 'token' as const, accessToken: current.accessToken };
      // A refresh token refused before is not presented again; authorizing again replaces it.
      if (current.refreshToken === undefined || locked.reauthorizationRequired) return { kind: 'invalid_grant' as const };
      // The SDK's refresh_token grant (same `resource`, the client that got the tokens; an answer without a refresh token keeps ours).
      const client = (await knownClients(deps, tx, locked.issuer, true)).find((known) => known.client_id === locked.clientId);
      const request = {
        metadata: tokenEndpointState(locked.issuer, locked.tokenEndpoint, locked.resource).authorizationServerMetadata,
        clientInformation: client ?? { client_id: locked.clientId },
        refreshToken: current.refreshToken,
        resource: locked.resource,
        fetchFn: oauthFetch(deps.config),
      };
      const refused = (error: unknown) => (error instanceof InvalidGrantError ? undefined : Promise.reject(error));
      const answer = await step(
        'refreshing the tokens',
        () => refreshAuthorization(locked.issuer, request).catch(refused),
        tokenRequestFailed,
      );
      if (!answer) return { kind: 'invalid_grant' as const };
      const fresh = tokenSetOf(answer, deps.clock(), current.scope);
      const sealed = sealJson(deps.config.credentialsKeyring, fresh, tokensContext(ref.agencyId, ref.serverId));
      await updateServerOAuthTokens(tx, { ...ref, keyId: sealed.keyId, sealed: sealed.ciphertext, now: deps.clock() });
      await setAgentMcpServerStatus(tx, { ...ref, status: 'connected', checkedAt: deps.clock() });
      return { kind: 'refreshed' as const, accessToken: fresh.accessToken };
    }),
  );
  switch (outcome.kind) {
    case 'gone':
      throw authorizationRequired();
    case 'invalid_grant':
      await setAgentMcpServerStatus(deps.db, { ...ref, status: 'reauthorization_required', checkedAt: deps.clock() });
      deps.logger.warn({ serverId: ref.serverId }, 'mcp oauth refresh refused: reauthorization required');
      throw serverUnauthorized('reauthorization_required', 'the authorization server refused the refresh token');
    case 'refreshed':
      deps.logger.info({ serverId: ref.serverId }, 'mcp oauth tokens refreshed');
      return outcome.accessToken;
    default:
      return outcome.accessToken;
  }
}

function open(deps: AppDeps, ref: OAuthServerRef, row: StoredTokensRow): TokenSet {
  return openJson<TokenSet>(
    deps.config.credentialsKeyring,
    { keyId: row.keyId, ciphertext: row.sealed },
    tokensContext(ref.agencyId, ref.serverId),
  );
}

function usable(tokens: TokenSet, now: Date, rejected: string | undefined): boolean {
  if (rejected !== undefined && tokens.accessToken === rejected) return false;
  return tokens.expiresAt === undefined || Date.parse(tokens.expiresAt) - REFRESH_SKEW_MS > now.getTime();
}

/** Runs the locked refresh; a lock not granted in time (the holder hangs) is a 504. */
async function singleFlight<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isLockTimeout(error)) throw refreshLockTimeout();
    throw error;
  }
}

/** PostgreSQL `lock_not_available` (55P03): the refresh lock was not granted in time. */
function isLockTimeout(error: unknown): boolean {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if ((current as { code?: unknown }).code === '55P03') return true;
    if (typeof current !== 'object') break;
  }
  return false;
}
