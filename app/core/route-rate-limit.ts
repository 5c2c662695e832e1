import type { Duration } from '@agents/rate-limit';
import type { IdentifierType } from '@agents/rate-limit/koa';
import { fullPath, type Method, type Route } from './route.ts';

/**
 * A route's own rate limit, declared on its definition (ADR 0100). The limiter runs first in the
 * route's chain, before the body is read (app/core/mount.ts); app/rate-limits.ts builds it.
 */
export type RouteRateLimit = {
  /** Requests allowed per window and identifier. */
  limit: number;
  /** Window length: milliseconds or a duration string such as `'15m'`. */
  windowMs: Duration;
  /**
   * What a window counts: the client address (`ip`), the verified token's user (`userId`), or
   * the API key presented (`apiKey`: a stored key, else the verified user, else the address).
   */
  identifierType: IdentifierType | 'apiKey';
  /**
   * `interface`: a row of the interface document's "Limits per endpoint" table (13 rows);
   * `project`: one of the project's own limits (ADR 0067).
   */
  source: 'interface' | 'project';
  /** Token in the RateLimit headers. Default derived from the path (see `policyNameOf`). */
  policyName?: string;
};

/** `POST /api/identity/auth/user/login`: a route's method and full path, as the README lists it. */
export type Endpoint = `${Method} /api/${string}`;

/** One row of the generated list of limited routes. */
export type RateLimitDeclaration = RouteRateLimit & { endpoint: Endpoint };

export const endpointOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${fullPath(route)}` as Endpoint;

/**
 * Every limited route, generated from the route declarations: the interface document's limits
 * first, then the project's own, each in mounting order. The README table, the tests and the
 * limiter all read this list.
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
