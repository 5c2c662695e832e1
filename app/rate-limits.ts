import { MemoryStore, ResilientStore, type Duration, type Store } from '@agents/rate-limit';
import { rateLimit, type IdentifierType } from '@agents/rate-limit/koa';
import { RedisStore } from '@agents/rate-limit/redis';
import type { Middleware } from 'koa';
import { verifyAccessToken } from './core/auth.ts';
import type { AppDeps } from './core/deps.ts';
import type { RateLimitLookup } from './core/mount.ts';
import { rateLimitExceededBody } from './core/rate-limit-body.ts';
import { fullPath, type Route } from './core/route.ts';

export type RateLimitDeclaration = {
  endpoint: `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /api/${string}`;
  limit: number;
  windowMs: Duration;
  identifierType: IdentifierType;
  /** Token in the RateLimit headers; default derived from the path (see `policyNameOf`). */
  policyName?: string;
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

// ---------------------------------------------------------------------------------------------
// The project's own limits (not in the interface document), listed in the README next to the 13
// above and served by the same middleware and store. ADR 0067.
// - Routes that make the server call out (DNS, OAuth discovery, client registration, token
//   exchange) or create accounts, so that one client cannot turn the service into an amplifier
//   or an account factory.
// - Identity routes added after the interface document, limited like their closest documented
//   sibling: forgot-password like check-email, reset-password like verify-email, logout and the
//   Google hand-off like refresh.
// ---------------------------------------------------------------------------------------------
export const PROJECT_RATE_LIMITS: readonly RateLimitDeclaration[] = [
  // Resource and authorization-server metadata discovery, dynamic client registration.
  { endpoint: 'POST /api/ai/agents/:agentId/mcp-servers/:serverId/oauth/initiate', limit: 10, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-oauth-initiate' },
  // Token exchange with the authorization server. Plain browsers land here without a token
  // (ADR 0082), so the window is the address's; twice the Google callback's.
  { endpoint: 'GET /api/ai/mcp-oauth/callback', limit: 20, windowMs: '1m', identifierType: 'ip', policyName: 'mcp-oauth-callback' },
  // A DNS lookup of the URL at save time (ADR 0033).
  { endpoint: 'POST /api/ai/agents/:agentId/mcp-servers', limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-servers-add' },
  { endpoint: 'PATCH /api/ai/agents/:agentId/mcp-servers/:serverId', limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-servers-edit' },
  // Connects to the MCP server (initialize, tools/list pages), and may refresh its token.
  { endpoint: 'GET /api/ai/agents/:agentId/mcp-servers/:serverId/tools', limit: 30, windowMs: '1m', identifierType: 'userId', policyName: 'mcp-server-tools' },
  // The start of the flow whose callback the interface limits to 10 per minute.
  { endpoint: 'GET /api/identity/auth/user/google/authorize', limit: 10, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'GET /api/identity/auth/client/google/authorize', limit: 10, windowMs: '1m', identifierType: 'ip' },
  // Creates a business and its owner, like register (5 per 15 minutes).
  { endpoint: 'POST /api/identity/auth/user/register/business', limit: 5, windowMs: '15m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/forgot-password', limit: 3, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/user/reset-password', limit: 5, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/client/forgot-password', limit: 3, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/client/reset-password', limit: 5, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/logout', limit: 10, windowMs: '1m', identifierType: 'ip' },
  { endpoint: 'POST /api/identity/auth/google/handoff', limit: 10, windowMs: '1m', identifierType: 'ip' },
];

/** Every limited route: the interface document's table, then the project's own. */
export const ALL_RATE_LIMITS: readonly RateLimitDeclaration[] = [...RATE_LIMITS, ...PROJECT_RATE_LIMITS];

/**
 * Is the route limited? The one question the OpenAPI document asks to add its 429 (ADR 0105).
 * Answered from the endpoint table today; a `rateLimit` on the route answers it once limits move
 * onto the routes.
 */
export const isRateLimited = (route: Pick<Route, 'method' | 'path'>) =>
  ALL_RATE_LIMITS.some((declaration) => declaration.endpoint === `${route.method} ${fullPath(route)}`);

/** A short token for the RateLimit headers: `POST /api/identity/auth/user/login` -> `user-login`. */
export const policyNameOf = (declaration: RateLimitDeclaration) =>
  declaration.policyName ??
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
  for (const declaration of ALL_RATE_LIMITS) {
    byEndpoint.set(
      declaration.endpoint,
      rateLimit({
        windowMs: declaration.windowMs,
        limit: declaration.limit,
        identifierType: declaration.identifierType,
        endpoint: declaration.endpoint,
        keyPrefix: 'rl',
        policyName: policyNameOf(declaration),
        errorBody: rateLimitExceededBody,
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
