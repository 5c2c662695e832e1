import { fullPath, type Method, type Route, type RouteRateLimit } from './route.ts';

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
