import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Context } from 'koa';
import { ForeignKeyIntegrityConstraintViolationError } from 'slonik';
import { lockAgentInOrganization } from '../../sql/agents.ts';
import { recordLanding, takeLandedAuthorization, takePendingAuthorization, type TakenAuthorization } from '../../sql/mcp-oauth-states.ts';
import { upsertServerOAuthTokens } from '../../sql/mcp-oauth-tokens.ts';
import { userHasPermission } from '../../sql/policies.ts';
import { bearerClaims, mayActIn } from '../core/auth.ts';
import type { AppDeps } from '../core/deps.ts';
import { forbidden, notFound, unauthorized, ValidationError } from '../core/errors.ts';
import { landingErrorCode, landingUrl, Redirect } from '../core/redirect.ts';
import type { AccessClaims } from '../core/route.ts';
import { authorizationDenied, handoffInvalid, invalidState, issuerMismatch, step, tokenRequestFailed } from './errors.ts';
import { createState, hashState, stateContext, type PendingSecrets } from './initiate.ts';
import { flowProvider, oauthFetch, seal, tokenEndpointState, tokenSetOf, unseal, type TokenSet } from './provider.ts';

/** Who may finish a flow: the grant of the initiate route, in the organization the flow began in. */
const AGENT_UPDATE = { subject: 'ai.agent', action: 'update' } as const;

export type CallbackQuery = { state: string; code?: string; iss?: string; error?: string; error_description?: string };

/** What the authorization server sent back to the redirect URI (RFC 6749 §4.1.2, RFC 9207). */
type AuthorizationResponse = { code?: string; iss?: string; error?: string; errorDescription?: string };

/** A hand-off must be completed within two minutes of the landing (the front-end does it on load). */
const HANDOFF_LIFETIME_MS = 2 * 60 * 1000;

const landingContext = (stateHash: Buffer) => `mcp-oauth-landing:${stateHash.toString('hex')}`;
/** Binds stored tokens to their organization and server (the `agency:` prefix is sealed into stored rows: it stays). */
export const tokensContext = (organizationId: string, serverId: string) => `agency:${organizationId}/server:${serverId}/oauth-tokens`;

/**
 * The callback's two callers (docs/mcp-oauth.md, Decisions): with the bearer token of the user
 * who started the flow, it completes at once (only the caller's own state is taken: another
 * user's is neither answered nor consumed). A plain browser (no Authorization header) may be a
 * victim sent someone else's authorization URL: it exchanges nothing (`landInBrowser`).
 */
export async function answerCallback(deps: AppDeps, ctx: Context, query: CallbackQuery) {
  const response = { code: query.code, iss: query.iss, error: query.error, errorDescription: query.error_description };
  if (ctx.get('authorization') === '') return landInBrowser(deps, query.state, response);
  const claims = bearerClaims(ctx, deps.config.jwtSecret, deps.clock);
  if (!claims) throw unauthorized();
  if (claims.type !== 'user' || !(await userHasPermission(deps.db, claims.sub, 'ai.agent', 'update'))) throw forbidden();
  const [now, stateHash] = [deps.clock(), hashState(query.state)];
  const pending = await takePendingAuthorization(deps.db, stateHash, claims.sub, now);
  // The flow began in the organization the user acted in (an agency's staff in a business): they must still may act there.
  if (!pending || pending.expired || !(await mayActIn(deps, claims, pending.organizationId, AGENT_UPDATE))) throw invalidState();
  return redeem(deps, pending, stateHash, response, now);
}

/**
 * The response is kept sealed on the pending flow, once (the first landing wins), with a
 * one-time hand-off that only the front-end holding the flow's browser key can complete
 * (`completeHandoff`). The browser is answered 303 to FRONTEND_URL either way.
 */
async function landInBrowser(deps: AppDeps, state: string, response: AuthorizationResponse): Promise<Redirect> {
  const land = (params: Record<string, string>) => new Redirect(landingUrl(deps.config.frontendUrl, params));
  try {
    const [now, stateHash, handoff] = [deps.clock(), hashState(state), createState()];
    const landed = await recordLanding(deps.db, {
      stateHash,
      handoffHash: hashState(handoff),
      ...seal(deps, response, landingContext(stateHash)),
      handoffExpiresAt: new Date(now.getTime() + HANDOFF_LIFETIME_MS),
      now,
    });
    if (!landed) throw invalidState();
    return land({ mcpOAuth: 'handoff', handoff, agentId: landed.agentId, serverId: landed.serverId });
  } catch (error) {
    return land({ mcpOAuth: 'error', errorCode: landingErrorCode(error) });
  }
}

/** The front-end that started the flow completes its landing: the initiating user's flow with that browser key, or HANDOFF_INVALID. */
export async function completeHandoff(deps: AppDeps, caller: AccessClaims, body: { handoff: string; browserKey: string }) {
  const now = deps.clock();
  const handoff = { handoffHash: hashState(body.handoff), userId: caller.sub, browserKeyHash: hashState(body.browserKey), now };
  const taken = await takeLandedAuthorization(deps.db, handoff);
  if (!taken || taken.expired || !(await mayActIn(deps, caller, taken.organizationId, AGENT_UPDATE))) throw handoffInvalid();
  const { stateHash, landingKeyId: keyId, landingSealed: sealed, ...pending } = taken;
  const response = unseal<AuthorizationResponse>(deps, { keyId, sealed }, landingContext(stateHash));
  return redeem(deps, pending, stateHash, response, now);
}

/** Steps 2-5 of the callback (docs/mcp-oauth.md) for a pending authorization already taken: `iss` first (RFC 9207 §2.4). */
async function redeem(deps: AppDeps, pending: TakenAuthorization, stateHash: Buffer, response: AuthorizationResponse, now: Date) {
  if (response.iss !== undefined && response.iss !== pending.issuer) throw issuerMismatch('the iss parameter names another issuer');
  if (response.iss === undefined && pending.issParameterSupported) {
    throw issuerMismatch('the iss parameter is missing although the authorization server supports it');
  }
  if (response.error !== undefined) throw authorizationDenied(response.error, response.errorDescription);
  if (!response.code) throw new ValidationError([{ path: ['query', 'code'], message: 'Required' }]);

  const { issuer, organizationId, serverId } = pending;
  const secrets = unseal<PendingSecrets>(deps, pending, stateContext(stateHash));
  const { clientId: client_id, tokenEndpointAuthMethod: token_endpoint_auth_method } = pending;
  const client = { client_id, token_endpoint_auth_method, client_secret: secrets.clientSecret, issuer };
  let tokens: TokenSet | undefined;
  const saveTokens = async (answer: OAuthTokens) => {
    // RFC 6749 §5.1: an omitted scope is the scope requested.
    tokens = tokenSetOf(answer, now, pending.scope ?? undefined);
    const row = { ...pending, ...seal(deps, tokens, tokensContext(organizationId, serverId)), now };
    // Stored under the agent's lock, only while the agent is in use: a flow whose agent was archived
    // while the user was at the authorization server ends as an unknown state, with nothing stored.
    // A foreign key violation: the server was deleted meanwhile.
    const stored = await deps.db
      .transaction(async (tx) => {
        if (!(await lockAgentInOrganization(tx, organizationId, pending.agentId))) return false;
        await upsertServerOAuthTokens(tx, row);
        return true;
      })
      .catch((error: unknown) => {
        throw error instanceof ForeignKeyIntegrityConstraintViolationError ? notFound('MCP server') : error;
      });
    if (!stored) throw invalidState();
  };
  const discovery = tokenEndpointState(issuer, pending.tokenEndpoint, pending.resource);
  const provider = flowProvider(deps, discovery, { client, verifier: secrets.codeVerifier, saveTokens });
  const exchange = { serverUrl: pending.resource, authorizationCode: response.code, fetchFn: oauthFetch(deps.config) };
  await step('requesting the tokens', () => auth(provider, exchange), tokenRequestFailed);
  if (!tokens) throw tokenRequestFailed('requesting the tokens: no tokens were issued');
  deps.logger.info({ agentId: pending.agentId, serverId, issuer }, 'mcp oauth connected');
  const { scope = null, expiresAt = null } = tokens;
  return { agentId: pending.agentId, serverId, connected: true as const, scope, expiresAt };
}
