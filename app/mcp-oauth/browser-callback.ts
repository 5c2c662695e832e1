import type { Context } from 'koa';
import { userHasPermission } from '../../sql/policies.ts';
import { verifyAccessToken } from '../core/auth.ts';
import type { AppDeps } from '../core/deps.ts';
import { forbidden, unauthorized } from '../core/errors.ts';
import { landingErrorCode, landingUrl, Redirect } from '../core/redirect.ts';
import { completeAuthorization, type CallbackQuery, type CompletedAuthorization } from './callback.ts';

/**
 * The callback route's two callers (ADR 0035, revised):
 * - an API client or web app forwarding the query with the bearer token of the user who
 *   started the flow: JSON, as before (401 for a bad token, 403 without `ai.agent:update`);
 * - a plain browser sent by the authorization server (no Authorization header): always a 303
 *   to `FRONTEND_URL` with `mcpOAuth=connected&agentId&serverId`, or `mcpOAuth=error&errorCode`.
 */
export async function answerCallback(deps: AppDeps, ctx: Context, query: CallbackQuery): Promise<CompletedAuthorization | Redirect> {
  const header = ctx.get('authorization');
  if (header === '') return landInBrowser(deps, query);
  const claims = header.startsWith('Bearer ') ? verifyAccessToken(header.slice('Bearer '.length), deps.config.jwtSecret) : undefined;
  if (!claims) throw unauthorized();
  if (claims.type !== 'user' || !(await userHasPermission(deps.db, claims.sub, 'ai.agent', 'update'))) throw forbidden();
  return completeAuthorization(deps, { userId: claims.sub, agencyId: claims.agencyId }, query);
}

async function landInBrowser(deps: AppDeps, query: CallbackQuery): Promise<Redirect> {
  try {
    const done = await completeAuthorization(deps, undefined, query);
    return new Redirect(landingUrl(deps.config.frontendUrl, { mcpOAuth: 'connected', agentId: done.agentId, serverId: done.serverId }));
  } catch (error) {
    return new Redirect(landingUrl(deps.config.frontendUrl, { mcpOAuth: 'error', errorCode: landingErrorCode(error) }));
  }
}
