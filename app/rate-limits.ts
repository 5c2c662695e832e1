import { MemoryStore, ResilientStore, type Store } from '@agents/rate-limit';
import { rateLimit, type ResolveIdentifier } from '@agents/rate-limit/koa';
import { RedisStore } from '@agents/rate-limit/redis';
import type { Middleware } from 'koa';
import { presentedApiKey } from './core/api-key-auth.ts';
import { bearerClaims } from './core/auth.ts';
import type { AppDeps } from './core/deps.ts';
import type { RateLimitLookup } from './core/mount.ts';
import { rateLimitExceededBody } from './core/rate-limit-body.ts';
import type { Route } from './core/route.ts';
import { policyNameOf, rateLimitedRoutes, type RateLimitDeclaration } from './core/route-rate-limit.ts';
import { areaRoutes } from './routes.ts';

export { policyNameOf, type RateLimitDeclaration };

/**
 * Every limited route, generated from the `rateLimit` each route declares on its definition
 * (ADR 0100): the 13 of the interface document's "Limits per endpoint" table, then the
 * project's own (ADR 0067). Routes without a declaration are not limited.
 */
export const ALL_RATE_LIMITS: readonly RateLimitDeclaration[] = rateLimitedRoutes(areaRoutes);

/** The interface document's limits (a test compares them with its table). */
export const RATE_LIMITS: readonly RateLimitDeclaration[] = ALL_RATE_LIMITS.filter((row) => row.source === 'interface');

/** The project's own limits, listed in the README next to the 13 and served by the same middleware and store. */
export const PROJECT_RATE_LIMITS: readonly RateLimitDeclaration[] = ALL_RATE_LIMITS.filter((row) => row.source === 'project');

/**
 * First segment of every limiter key: `rl:<endpoint>:<ip:… | user:…>`, the address as the library's
 * `ipKey` writes it (`ip:203.0.113.7`, `ip:2001:db8:1:200::/56`); the CLI's `rate-limit reset` builds the same.
 */
export const RATE_LIMIT_KEY_PREFIX = 'rl';

/**
 * How long a Redis-backed instance answers a full key from its deny cache before asking Redis again, ms.
 * Bounds how long a `rate-limit reset` from the CLI goes unseen by a running server.
 */
export const RATE_LIMIT_DENY_CACHE_MAX_AGE_MS = 5_000;
/** Whether `route` declares a limit (the OpenAPI document lists its 429). */
export const isRateLimited = (route: Pick<Route, 'rateLimit'>) => route.rateLimit !== undefined;

/** The declaration of a limited route by its endpoint (`POST /api/identity/auth/user/login`), or undefined. */
export const rateLimitOf = (endpoint: string): RateLimitDeclaration | undefined => ALL_RATE_LIMITS.find((row) => row.endpoint === endpoint);

/**
 * `key:<keyId>` for a request that presents a stored API key (the lookup is the one
 * authentication reuses), else `user:<sub>` of a verified access token, else `ip:<address>`.
 * An unknown or malformed key counts against the address, so made-up keys buy no buckets.
 */
function apiKeyIdentifier(deps: AppDeps): ResolveIdentifier {
  return async (ctx) => {
    const key = await presentedApiKey(ctx, deps);
    if (key) return `key:${key.id}`;
    const claims = bearerClaims(ctx, deps.config.jwtSecret);
    return claims ? `user:${claims.sub}` : `ip:${ctx.ip}`;
  };
}

/**
 * One store for every limited route of an app: Redis when configured (falling back to memory
 * during an outage, logged once), else memory. Counts run on Redis's clock when Redis is
 * used, on the app clock otherwise.
 */
export function createRateLimitStore(deps: AppDeps): Store {
  const now = () => deps.clock().getTime();
  if (!deps.redis) return new MemoryStore({ now });
  return new ResilientStore(new RedisStore(deps.redis, { denyCache: { maxAgeMs: RATE_LIMIT_DENY_CACHE_MAX_AGE_MS } }), {
    onStoreError: 'fallback-memory',
    logger: deps.logger.child({ component: 'rate-limit' }),
    now,
  });
}

/**
 * The limiter middleware of each route that declares a limit, built once per app over one
 * shared store. `routes`: the declarations to serve; default every area's routes.
 */
export function rateLimitLookup(
  deps: AppDeps,
  store: Store = createRateLimitStore(deps),
  routes: readonly Route[] = areaRoutes,
): RateLimitLookup {
  const byEndpoint = new Map<string, Middleware>();
  for (const declaration of rateLimitedRoutes(routes)) {
    byEndpoint.set(
      declaration.endpoint,
      rateLimit({
        windowMs: declaration.windowMs,
        limit: declaration.limit,
        identifierType: declaration.identifierType === 'apiKey' ? 'userId' : declaration.identifierType,
        ...(declaration.identifierType === 'apiKey' ? { identifier: apiKeyIdentifier(deps) } : {}),
        // An IPv6 client counts by its prefix (RATE_LIMIT_IPV6_PREFIX), in `ip` limits and in `userId` ones without a user.
        ipv6Subnet: deps.config.rateLimitIpv6Prefix,
        endpoint: declaration.endpoint,
        keyPrefix: RATE_LIMIT_KEY_PREFIX,
        policyName: policyNameOf(declaration),
        errorBody: rateLimitExceededBody,
        store,
        now: () => deps.clock().getTime(),
        // The limiter runs before authentication: it verifies the bearer token itself and
        // falls back to the IP for a missing or invalid one (never an unverified decode).
        resolveUser: (ctx) => bearerClaims(ctx, deps.config.jwtSecret),
      }),
    );
  }
  return (method, fullPath) => byEndpoint.get(`${method} ${fullPath}`);
}
