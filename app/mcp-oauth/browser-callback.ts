import type { Context } from 'koa';
import { recordLanding } from '../../sql/mcp-oauth-states.ts';
import { userHasPermission } from '../../sql/policies.ts';
import { bearerClaims } from '../core/auth.ts';
import type { AppDeps } from '../core/deps.ts';
import { forbidden, unauthorized } from '../core/errors.ts';
import { landingErrorCode, landingUrl, Redirect } from '../core/redirect.ts';
import { sealJson } from '../crypto/credentials.ts';
import { completeAuthorization, responseOf, type CallbackQuery, type CompletedAuthorization } from './callback.ts';
import { invalidState } from './errors.ts';
import { HANDOFF_LIFETIME_MS, landingContext } from './handoff.ts';
import { createState, hashState } from './state-token.ts';

/**
 * The callback route's two callers (ADR 0035, 0082):
 * - an API client or web app forwarding the query with the bearer token of the user who
 *   started the flow: completes at once, JSON (401 for a bad token, 403 without `ai.agent:update`);
 * - a plain browser sent by the authorization server (no Authorization header): exchanges
 *   nothing. It records the response for the front-end that started the flow and answers a
 *   303 to `FRONTEND_URL` with `mcpOAuth=handoff&handoff&agentId&serverId`, or
 *   `mcpOAuth=error&errorCode`.
 */
export async function answerCallback(deps: AppDeps, ctx: Context, query: CallbackQuery): Promise<CompletedAuthorization | Redirect> {
  const header = ctx.get('authorization');
  if (header === '') return landInBrowser(deps, query);
  const claims = bearerClaims(ctx, deps.config.jwtSecret);
  if (!claims) throw unauthorized();
  if (claims.type !== 'user' || !(await userHasPermission(deps.db, claims.sub, 'ai.agent', 'update'))) throw forbidden();
  return completeAuthorization(deps, { userId: claims.sub, agencyId: claims.agencyId }, query);
}

/**
 * A browser landed: whoever opened this URL (the user who started the flow, or a victim sent
 * an authorization URL someone else started) is not known here, so no code is exchanged.
 * The response is kept sealed on the pending flow, once, with a one-time hand-off (256 bits,
 * hash stored, HANDOFF_LIFETIME_MS) that only the front-end holding the flow's browser key
 * can complete with its own access token (POST /ai/mcp-oauth/complete).
 */
async function landInBrowser(deps: AppDeps, query: CallbackQuery): Promise<Redirect> {
  const land = (params: Record<string, string>) => new Redirect(landingUrl(deps.config.frontendUrl, params));
  try {
    const now = deps.clock();
    const stateHash = hashState(query.state);
    const handoff = createState();
    const sealed = sealJson(deps.config.credentialsKeyring, responseOf(query), landingContext(stateHash));
    const landed = await recordLanding(deps.db, {
      stateHash,
      handoffHash: hashState(handoff),
      keyId: sealed.keyId,
      sealed: sealed.ciphertext,
      handoffExpiresAt: new Date(now.getTime() + HANDOFF_LIFETIME_MS),
      now,
    });
    if (!landed) throw invalidState();
    return land({ mcpOAuth: 'handoff', handoff, agentId: landed.agentId, serverId: landed.serverId });
  } catch (error) {
    return land({ mcpOAuth: 'error', errorCode: landingErrorCode(error) });
  }
}
