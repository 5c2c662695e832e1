import type { Context, Middleware, Next } from 'koa';
import { findApiKeyByHash, touchApiKey, type KeyHolder } from '../../sql/api-keys.ts';
import { apiKeyHash, API_KEY_PREFIX, isApiKeyShaped } from './api-key-secret.ts';
import type { AppDeps } from './deps.ts';
import { forbidden, HttpError } from './errors.ts';
import type { AccessClaims, ApiKeyAccess, ApiKeyCaller, IngestionCaller } from './route.ts';
import type { ActingScope } from './route-scope.ts';

/** `lastUsedAt` moves at most this often per key, so a busy key writes its row once a minute. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const bearerOf = (ctx: Context) => {
  const header = ctx.get('authorization');
  return header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
};

/**
 * The stored key the request presents, looked up once per request (the rate limiter asks
 * first, authentication reuses the answer). Read from the database every time: a deleted key
 * is refused on the very next request. Undefined for no key, a malformed or an unknown one.
 */
export function presentedApiKey(ctx: Context, deps: AppDeps): Promise<KeyHolder | undefined> {
  const state = ctx.state as { apiKeyLookup?: Promise<KeyHolder | undefined> };
  state.apiKeyLookup ??= (async () => {
    const token = bearerOf(ctx);
    if (token === undefined || !isApiKeyShaped(token)) return undefined;
    return (await findApiKeyByHash(deps.db, apiKeyHash(deps.config.jwtSecret, token))) ?? undefined;
  })();
  return state.apiKeyLookup;
}

const invalidKey = () => new HttpError(401, 'Invalid or missing API key');

/**
 * Authentication of an ingestion route (ADR 0140): a bearer `agk_` key with the route's scope,
 * or (unless `keyOnly`) a user access token that passes `requireAccess` (the route's policy and the
 * organization it acts in, app/core/auth.ts). Sets `ctx.state.caller` (an `ApiKeyCaller`, or a
 * `TokenCaller` in the acting organization), which the mount hands to the handler as its `auth`.
 * `requireToken` is the access-token check every other route uses. A key acts only in its own
 * organization: an `x-org-id` naming another is 403.
 */
export function authenticateIngestion(
  deps: AppDeps,
  access: ApiKeyAccess,
  requireToken: Middleware,
  requireAccess: Middleware,
): Middleware {
  return async function requireKeyOrToken(ctx: Context, next: Next) {
    const token = bearerOf(ctx);
    if (token?.startsWith(API_KEY_PREFIX) || access.keyOnly) {
      const key = await presentedApiKey(ctx, deps);
      if (key === undefined) throw invalidKey();
      if (!key.scopes.includes(access.scope)) throw forbidden();
      const now = deps.clock();
      if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
        await touchApiKey(deps.db, key.id, now, new Date(now.getTime() - LAST_USED_RESOLUTION_MS));
      }
      const named = ctx.get('x-org-id');
      if (named !== '' && named.toLowerCase() !== key.organizationId) throw forbidden();
      ctx.state.caller = { via: 'apiKey', organizationId: key.organizationId, apiKeyId: key.id } satisfies ApiKeyCaller;
      return next();
    }
    return requireToken(ctx, async () => {
      const claims = ctx.state.auth as AccessClaims;
      if (claims.type !== 'user') throw forbidden();
      await requireAccess(ctx, async () => {
        const { organizationId } = ctx.state.acting as ActingScope;
        ctx.state.caller = { via: 'token', organizationId, userId: claims.sub, claims } satisfies IngestionCaller;
        await next();
      });
    });
  };
}
