import { MemoryStore, RedisStore, ResilientStore, rateLimit, type Store } from '@agents/rate-limit';
import type { IdentifierType } from '@agents/rate-limit';
import type { Middleware } from 'koa';
import { verifyAccessToken } from './core/auth.ts';
import type { AppDeps } from './core/deps.ts';
import type { RateLimitLookup } from './core/mount.ts';
import { fullPath, type Route } from './core/route.ts';

export type RateLimitDeclaration = {
  endpoint: `${'GET' | 'POST'} /api/${string}`;
  limit: number;
  windowMs: string;
  identifierType: IdentifierType;
};

/**
 * The service's rate limits: the interface document's "Limits per endpoint" table, row by row
 * (a test compares the two). Routes that are not listed are not limited.
 */
export const RATE_LIMITS: readonly RateLimitDeclaration[] = [
  { endpoint: 'POST /api/identity/auth/user/check-email', limit: 3, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/register', limit: 5, windowMs: '15m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/verify-email', limit: 5, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/login', limit: 10, windowMs: '15m', identifierType: 'ip' },
  { endpoint: 'GET /api/identity/auth/user/google/callback', limit: 10, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/change-password', limit: 3, windowMs: '15m', identifierType: 'userId' },
  { endpoint: 'POST /api/identity/auth/client/register', limit: 5, windowMs: '15m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/client/verify-email', limit: 5, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/client/login', limit: 10, windowMs: '15m', identifierType: 'ip' },
  { endpoint: 'GET /api/identity/auth/client/google/callback', limit: 10, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/client/change-password', limit: 3, windowMs: '15m', identifierType: 'userId' },
  { endpoint: 'POST /api/identity/auth/refresh', limit: 10, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/notifications/sms/test', limit: 3, windowMs: '5m', identifierType: 'ip' },
];

/** Whether the table declares a limit for `route` (the OpenAPI document lists its 429). */
export const isRateLimited = (route: Pick<Route, 'method' | 'path'>) =>
  RATE_LIMITS.some((declaration) => declaration.endpoint === `${route.method} ${fullPath(route)}`);

/** A short token for the RateLimit headers: `POST /api/identity/auth/user/login` -> `user-login`. */
export const policyNameOf = (declaration: RateLimitDeclaration) =>
  declaration.endpoint
    .replace(/^\w+ \/api\//, '')
    .replace(/^identity\/auth\//, '')
    .replace(/\//g, '-');

/**
 * One store for every limited route of an app: Redis when configured (falling back to memory
 * during an outage, logged once), else memory. Counts run on Redis's clock when Redis is
 * used, on the app clock otherwise.
 */
export function createRateLimitStore(deps: AppDeps): Store {
  const now = () => deps.clock().getTime();
  if (!deps.redis) return new MemoryStore({ now });
  return new ResilientStore(new RedisStore(deps.redis), {
    onStoreError: 'fallback-memory',
    logger: deps.logger.child({ component: 'rate-limit' }),
    now,
  });
}

/** The limiter middleware of each declared route, built once per app over one shared store. */
export function rateLimitLookup(deps: AppDeps, store: Store = createRateLimitStore(deps)): RateLimitLookup {
  const byEndpoint = new Map<string, Middleware>();
  for (const declaration of RATE_LIMITS) {
    byEndpoint.set(
      declaration.endpoint,
      rateLimit({
        windowMs: declaration.windowMs,
        limit: declaration.limit,
        identifierType: declaration.identifierType,
        endpoint: declaration.endpoint,
        keyPrefix: 'rl',
        policyName: policyNameOf(declaration),
        store,
        now: () => deps.clock().getTime(),
        // The limiter runs before authentication: it verifies the bearer token itself and
        // falls back to the IP for a missing or invalid one (never an unverified decode).
        resolveUser: (ctx) => {
          const header = ctx.get('authorization');
          const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
          return token ? verifyAccessToken(token, deps.config.jwtSecret) : undefined;
        },
      }),
    );
  }
  return (method, fullPath) => byEndpoint.get(`${method} ${fullPath}`);
}
