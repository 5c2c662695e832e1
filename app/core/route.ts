import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { AppDeps } from './deps.ts';
import type { RouteRateLimit } from './route-rate-limit.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type PrincipalType = 'user' | 'client';

/** Claims of a verified access token (contract §2). */
export type AccessClaims = {
  sub: string;
  userId: string;
  agencyId: string;
  type: PrincipalType;
  iat: number;
  exp: number;
};

export type Policy = { subject: string; action: string };

type Schemas = { params?: TSchema; query?: TSchema; body?: TSchema };
type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;

export type RouteInput<S extends Schemas, A extends 'jwt' | 'public'> = {
  params: Infer<S['params']>;
  query: Infer<S['query']>;
  body: Infer<S['body']>;
  auth: A extends 'jwt' ? AccessClaims : AccessClaims | undefined;
  deps: AppDeps;
  ctx: Context;
};

export type Response = { description: string; schema?: TSchema };

export type RouteSpec<S extends Schemas, A extends 'jwt' | 'public'> = {
  method: Method;
  /** Path below the global `/api` prefix, in koa-router syntax (`/ai/agents/:agentId`). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** `jwt`: a verified access token is required (401 otherwise). */
  auth: A;
  /** Only principals of this type may call the route (403 otherwise). */
  principal?: PrincipalType;
  /** A `{ subject, action }` grant read from the database at request time (403 otherwise). */
  policy?: Policy;
  /** This route's rate limit (ADR 0100); a route without one is not limited. */
  rateLimit?: RouteRateLimit;
  schemas?: S;
  /** Status of a successful answer. Default 200; 204 sends no body. */
  status?: number;
  responses: Record<number, Response>;
  /**
   * The handler only reads, so it may be run a second time on a fresh database connection when
   * the first one dies (app/core/database-faults.ts). Default: true for GET, false otherwise; a
   * GET that writes (an OAuth callback) sets `false`.
   */
  readOnly?: boolean;
  /** Mount the route only when this holds; elsewhere the path answers 404. */
  enabled?: (deps: AppDeps) => boolean;
  handler: (input: RouteInput<S, A>) => Promise<unknown> | unknown;
};

/** A declared route: the single source for mounting, validation and the OpenAPI document. */
export type Route = RouteSpec<Schemas, 'jwt' | 'public'>;

export function defineRoute<const S extends Schemas = Record<never, never>, const A extends 'jwt' | 'public' = 'jwt'>(
  spec: RouteSpec<S, A>,
): Route {
  return spec as unknown as Route;
}

/** `/ai/agents/:agentId` -> `/api/ai/agents/:agentId`. */
export const API_PREFIX = '/api';
export const fullPath = (route: Pick<Route, 'path'>) => `${API_PREFIX}${route.path}`;
