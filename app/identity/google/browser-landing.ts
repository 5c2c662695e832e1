import type { Context } from 'koa';
import type { GoogleOAuthConfig } from '../../config.ts';
import type { AppDeps } from '../../core/deps.ts';
import { landingErrorCode, landingUrl, Redirect } from '../../core/redirect.ts';
import type { PrincipalType } from '../../core/route.ts';
import { createHandoff } from './handoff.ts';
import { finishGoogleSignIn } from './sign-in.ts';

/** A top-level browser navigation asks for HTML; API clients and scripts do not. */
export const isBrowserNavigation = (ctx: Context) => /\btext\/html\b/i.test(ctx.get('accept'));

/**
 * Google redirected a browser to the callback: finish the sign-in, then send the browser to
 * `FRONTEND_URL` with `googleSignIn=success&type&handoff=<one-time code>` (traded with the
 * state for tokens at `POST /identity/auth/google/handoff`), or `googleSignIn=error&type&errorCode`.
 */
export async function landGoogleSignIn(
  deps: AppDeps,
  google: GoogleOAuthConfig,
  type: PrincipalType,
  query: { code?: string | undefined; state: string; error?: string | undefined },
): Promise<Redirect> {
  const land = (params: Record<string, string>) =>
    new Redirect(landingUrl(deps.config.frontendUrl, { googleSignIn: params.handoff ? 'success' : 'error', type, ...params }));
  try {
    const handoff = await finishGoogleSignIn(deps, google, type, query, (tx, subject) => createHandoff(deps, tx, subject.id, query.state));
    return land({ handoff });
  } catch (error) {
    return land({ errorCode: landingErrorCode(error) });
  }
}
