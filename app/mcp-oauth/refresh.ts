import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { setAgentMcpServerStatus } from '../../sql/agent-mcp-servers.ts';
import { findServerOAuthTokens, lockServerOAuthTokens, updateServerOAuthTokens, type StoredTokensRow } from '../../sql/mcp-oauth-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { hasSqlState } from '../db/connection-loss.ts';
import { authorizationRequired, serverUnauthorized } from '../mcp-client/errors.ts';
import { tokensContext } from './callback.ts';
import { step, tokenRequestFailed, upstreamTimeout } from './errors.ts';
import { knownClients, oauthFetch, seal, tokenEndpointState, tokenSetOf, unseal, type TokenSet } from './provider.ts';

/** A token expiring within this many milliseconds is refreshed before use. */
const REFRESH_SKEW_MS = 60_000;

/** Extra wait for the refresh lock beyond one token request's deadline (the holder's request). */
const LOCK_MARGIN_MS = 2_000;

type OAuthServerRef = { organizationId: string; serverId: string };

/**
 * A usable access token for an OAuth agent MCP server (docs/mcp-oauth.md, "Token refresh"). The
 * refresh is single flight: callers of one app join the refresh in flight (`joined`), and across
 * processes the token row's lock orders them: a caller that waited re-reads the row, and a
 * rotated refresh token is stored before the lock is released. `rejected`: the access token the
 * MCP server just answered 401 to.
 */
export async function oauthAccessToken(deps: AppDeps, ref: OAuthServerRef, rejected?: string): Promise<string> {
  const row = await findServerOAuthTokens(deps.db, ref.organizationId, ref.serverId);
  if (!row) throw authorizationRequired();
  const stored = opened(deps, ref, row, rejected);
  if (stored.usable) return stored.accessToken;
  return joined(deps, `${ref.organizationId}:${ref.serverId}:${rejected ?? ''}`, () => lockedRefresh(deps, ref, rejected));
}

/** The stored tokens; `usable` while valid for more than REFRESH_SKEW_MS and not the rejected access token. */
function opened(deps: AppDeps, ref: OAuthServerRef, row: StoredTokensRow, rejected: string | undefined) {
  const tokens = unseal<TokenSet>(deps, row, tokensContext(ref.organizationId, ref.serverId));
  const expiresAt = tokens.expiresAt === undefined ? Infinity : Date.parse(tokens.expiresAt);
  return { ...tokens, usable: tokens.accessToken !== rejected && expiresAt - REFRESH_SKEW_MS > deps.clock().getTime() };
}

/** Per app: the refresh this process runs for a server (and rejected token), joined by concurrent callers. */
const refreshesByApp = new WeakMap<AppDeps, Map<string, Promise<string>>>();

/**
 * Callers of one app that need the same refresh share it instead of queueing on the row lock
 * one transaction after another; the lock still orders refreshes across processes.
 */
function joined(deps: AppDeps, key: string, run: () => Promise<string>): Promise<string> {
  const inFlight = refreshesByApp.get(deps) ?? new Map<string, Promise<string>>();
  refreshesByApp.set(deps, inFlight);
  // `finally` runs after the set below, also for a refresh that settles at once.
  const running = inFlight.get(key) ?? run().finally(() => inFlight.delete(key));
  inFlight.set(key, running);
  return running;
}

async function lockedRefresh(deps: AppDeps, ref: OAuthServerRef, rejected: string | undefined): Promise<string> {
  const lockTimeoutMs = deps.config.mcpOAuth.outboundTimeoutMs + LOCK_MARGIN_MS;
  const outcome = await deps.db
    .transaction(async (tx) => {
      const locked = await lockServerOAuthTokens(tx, ref.organizationId, ref.serverId, lockTimeoutMs);
      if (!locked) return 'gone';
      const current = opened(deps, ref, locked, rejected);
      if (current.usable) return { accessToken: current.accessToken, refreshed: false };
      // A refresh token refused before is not presented again; authorizing again replaces it.
      const refreshToken = locked.reauthorizationRequired ? undefined : current.refreshToken;
      if (refreshToken === undefined) return 'invalid_grant';
      // Same `resource`, the client that got the tokens; an answer without a refresh token keeps ours (the SDK's).
      const client = (await knownClients(deps, tx, locked.issuer, true)).find((known) => known.client_id === locked.clientId);
      const refreshed = () =>
        refreshAuthorization(locked.issuer, {
          metadata: tokenEndpointState(locked.issuer, locked.tokenEndpoint, locked.resource).authorizationServerMetadata,
          clientInformation: client ?? { client_id: locked.clientId },
          refreshToken,
          resource: locked.resource,
          fetchFn: oauthFetch(deps.config),
        }).catch((error) => (error instanceof InvalidGrantError ? undefined : Promise.reject(error)));
      const answer = await step('refreshing the tokens', refreshed, tokenRequestFailed);
      if (!answer) return 'invalid_grant';
      const fresh = tokenSetOf(answer, deps.clock(), current.scope);
      await updateServerOAuthTokens(tx, {
        ...ref,
        ...seal(deps, fresh, tokensContext(ref.organizationId, ref.serverId)),
        now: deps.clock(),
      });
      await setAgentMcpServerStatus(tx, { ...ref, status: 'connected', checkedAt: deps.clock() });
      return { accessToken: fresh.accessToken, refreshed: true };
    })
    .catch((error: unknown) => {
      // PostgreSQL `lock_not_available` (55P03): the lock was not granted in time, the refresh holding it hangs.
      throw hasSqlState(error, '55P03') ? upstreamTimeout('waiting for a concurrent token refresh') : error;
    });
  if (outcome === 'gone') throw authorizationRequired();
  if (outcome === 'invalid_grant') {
    await setAgentMcpServerStatus(deps.db, { ...ref, status: 'reauthorization_required', checkedAt: deps.clock() });
    deps.logger.warn({ serverId: ref.serverId }, 'mcp oauth refresh refused: reauthorization required');
    throw serverUnauthorized('reauthorization_required', 'the authorization server refused the refresh token');
  }
  if (outcome.refreshed) deps.logger.info({ serverId: ref.serverId }, 'mcp oauth tokens refreshed');
  return outcome.accessToken;
}
