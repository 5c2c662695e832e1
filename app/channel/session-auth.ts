import type { Context } from 'koa';
import { findChannelSession, type EndUser } from '../../sql/end-users.ts';
import type { EndUserScope } from '../../sql/chat-conversations.ts';
import type { AppDeps } from '../core/deps.ts';
import { unauthorized } from '../core/errors.ts';
import type { EndUserAuth } from '../core/route.ts';
import { AI_CHANNEL_NOT_FOUND, AI_ORIGIN_NOT_ALLOWED, channelNotFound, originNotAllowed } from './errors.ts';
import { allowOrigin, originAllowed } from './origins.ts';
import { sessionClaims } from './session-token.ts';

/** The caller of a `/api/public/...` route: the end user, whose conversations they are, and the channel's rules. */
export type EndUserCaller = {
  scope: EndUserScope;
  endUser: EndUser;
  channel: { allowedOrigins: string[]; approvals: 'staff' | 'end_user'; endUserMessagesPerDay: number };
};

/** The service's own origin (its share page's), from `PUBLIC_BASE_URL`. */
export const serviceOrigin = (deps: Pick<AppDeps, 'config'>) => new URL(deps.config.publicBaseUrl).origin;

/**
 * How the public routes authenticate (`auth: { endUser: CHANNEL_SESSION }`, docs/channel.md):
 * - a session token (`type: "end_user"`), else 401 (a staff token too);
 * - its end user, agent and channel still there: the channel enabled and the agent in use, else
 *   404 `AI.CHANNEL_NOT_FOUND` (a disabled channel or an archived agent ends every session);
 * - a request with an `Origin` only from an origin the channel allows (else 403
 *   `AI.ORIGIN_NOT_ALLOWED`, without CORS headers); the answer then carries CORS headers for it. A
 *   request without one (a server, or a browser's same-origin GET on the share page) is taken:
 *   the token is the credential, and an Origin check only stops other sites' pages.
 * One statement a request.
 */
export const CHANNEL_SESSION: EndUserAuth<EndUserCaller> = {
  async authenticate(deps: AppDeps, ctx: Context): Promise<EndUserCaller> {
    const claims = sessionClaims(ctx, deps.config.jwtSecret, deps.clock);
    if (!claims) throw unauthorized();
    const session = await findChannelSession(deps.db, claims.agentId, claims.sub);
    if (!session || session.organizationId !== claims.organizationId) throw channelNotFound();
    const origin = ctx.get('origin');
    if (origin !== '') {
      if (!originAllowed(session.channel.allowedOrigins, origin, serviceOrigin(deps))) throw originNotAllowed();
      allowOrigin(ctx, origin);
    }
    return {
      scope: { organizationId: session.organizationId, agentId: session.agentId, endUserId: session.endUser.id },
      endUser: session.endUser,
      channel: session.channel,
    };
  },
  identify(deps: AppDeps, ctx: Context): string | undefined {
    const claims = sessionClaims(ctx, deps.config.jwtSecret, deps.clock);
    return claims ? `endUser:${claims.sub}` : undefined;
  },
  errors: [AI_CHANNEL_NOT_FOUND, AI_ORIGIN_NOT_ALLOWED],
};
