import { policyNameOf, rateLimitedRoutes, type RateLimitDeclaration } from './core/route-rate-limit.ts';
import { areaRoutes } from './routes.ts';

export { createRateLimitStore, RATE_LIMIT_DENY_CACHE_MAX_AGE_MS, RATE_LIMIT_KEY_PREFIX } from './core/route-rate-limit.ts';
export { policyNameOf, type RateLimitDeclaration };

/**
 * Every limited route, generated from the `rateLimit` each route declares on its definition
 * (ADR 0100): the 13 of the interface document's "Limits per endpoint" table, then the
 * project's own (ADR 0067). Routes without a declaration are not limited. The README table,
 * the CLI's `rate-limit reset` and the tests read it; the router builds each limiter from the
 * route itself (app/core/mount.ts).
 */
export const ALL_RATE_LIMITS: readonly RateLimitDeclaration[] = rateLimitedRoutes(areaRoutes);

/** The interface document's limits (a test compares them with its table). */
export const RATE_LIMITS: readonly RateLimitDeclaration[] = ALL_RATE_LIMITS.filter((row) => row.source === 'interface');

/** The project's own limits, listed in the README next to the 13 and served by the same middleware and store. */
export const PROJECT_RATE_LIMITS: readonly RateLimitDeclaration[] = ALL_RATE_LIMITS.filter((row) => row.source === 'project');
