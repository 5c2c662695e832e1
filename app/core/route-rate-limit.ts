import { ipKey, MemoryStore, ResilientStore, type Store } from '@agents/rate-limit';
import { rateLimit, type ResolveIdentifier } from '@agents/rate-limit/koa';
import { RedisStore } from '@agents/rate-limit/redis';
import type { Middleware } from 'koa';
import { presentedApiKey } from './api-key-auth.ts';
import { bearerClaims } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { rateLimitExceededBody } from './rate-limit-body.ts';
import { endUserAuthOf, fullPath, type Method, type Route, type RouteRateLimit } from './route.ts';

/** `POST /api/identity/auth/user/login`: a route's method and full path, as the README lists it. */
export type Endpoint = `${Method} /api/${string}`;

/** One row of the generated list of limited routes. */
export type RateLimitDeclaration = RouteRateLimit & { endpoint: Endpoint };

export const endpointOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${fullPath(route)}` as Endpoint;

/**
 * Every limited route, generated from the route declarations: the interface document's limits
 * first, then the project's own, each in mounting order. The README table, the tests and the
 * CLI read this list; the limiter itself reads `route.rateLimit` (`routeLimiter`).
 */
export function rateLimitedRoutes(routes: readonly Route[]): RateLimitDeclaration[] {
  const rows = routes.flatMap((route) => (route.rateLimit ? [{ endpoint: endpointOf(route), ...route.rateLimit }] : []));
  return [...rows.filter((row) => row.source === 'interface'), ...rows.filter((row) => row.source === 'project')];
}

/** A short token for the RateLimit headers: `POST /api/identity/auth/user/login` -> `user-login`. */
export const policyNameOf = (declaration: Pick<RateLimitDeclaration, 'endpoint' | 'policyName'>) =>
  declaration.policyName ??
  declaration.endpoint
    .replace(/^\w+ \/api\//, '')
    .replace(/^identity\/auth\//, '')
    .replace(/\//g, '-');

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
 * `key:<keyId>` for a request that presents a stored API key (the lookup is the one
 * authentication reuses), else `user:<sub>` of a verified access token, else `ip:<address>`.
 * An unknown or malformed key counts against the address, so made-up keys buy no buckets.
 */
function apiKeyIdentifier(deps: AppDeps): ResolveIdentifier {
  return async (ctx) => {
    const key = await presentedApiKey(ctx, deps);
    if (key) return `key:${key.id}`;
    const claims = bearerClaims(ctx, deps.config.jwtSecret, deps.clock);
    return claims ? `user:${claims.sub}` : `ip:${ctx.ip}`;
  };
}

/**
 * `org:<organizationId>` of a verified access token (the caller's own organization, never the
 * unverified `x-org-id`: a caller cannot spend another organization's window), else `ip:<address>`
 * (an IPv6 address by its `RATE_LIMIT_IPV6_PREFIX` network, as the library keys it).
 */
function organizationIdentifier(deps: AppDeps): ResolveIdentifier {
  return (ctx) => {
    const claims = bearerClaims(ctx, deps.config.jwtSecret, deps.clock);
    return claims ? `org:${claims.organizationId}` : `ip:${ipKey(ctx.ip, deps.config.rateLimitIpv6Prefix)}`;
  };
}

/** The limiter middleware of a route that declares `rateLimit`, counting in `store`; undefined for any other. */
export function routeLimiter(route: Route, deps: AppDeps, store: Store): Middleware | undefined {
  const declared = route.rateLimit;
  if (!declared) return undefined;
  const endpoint = endpointOf(route);
  const endUser = endUserAuthOf(route.auth);
  // An end-user route's `userId` is the session's end user (its area names it), else the address.
  const endUserIdentifier: ResolveIdentifier | undefined =
    endUser && declared.identifierType === 'userId' ? (ctx) => Promise.resolve(endUser.identify(deps, ctx) ?? `ip:${ctx.ip}`) : undefined;
  const identifier =
    declared.identifierType === 'apiKey'
      ? apiKeyIdentifier(deps)
      : declared.identifierType === 'organization'
        ? organizationIdentifier(deps)
        : endUserIdentifier;
  return rateLimit({
    windowMs: declared.windowMs,
    limit: declared.limit,
    identifierType: declared.identifierType === 'ip' ? 'ip' : 'userId',
    ...(identifier ? { identifier } : {}),
    // An IPv6 client counts by its prefix (RATE_LIMIT_IPV6_PREFIX), in `ip` limits and in `userId` ones without a user.
    ipv6Subnet: deps.config.rateLimitIpv6Prefix,
    endpoint,
    keyPrefix: RATE_LIMIT_KEY_PREFIX,
    policyName: policyNameOf({ endpoint, policyName: declared.policyName }),
    errorBody: rateLimitExceededBody,
    store,
    now: () => deps.clock().getTime(),
    // The limiter runs before authentication: it verifies the bearer token itself and
    // falls back to the IP for a missing or invalid one (never an unverified decode).
    resolveUser: (ctx) => bearerClaims(ctx, deps.config.jwtSecret, deps.clock),
  });
}
