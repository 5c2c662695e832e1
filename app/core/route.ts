import type { Duration } from '@agents/rate-limit';
import type { IdentifierType } from '@agents/rate-limit/koa';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { BinaryBody } from './binary-body.ts';
import type { ApiKeyScope } from '../../sql/api-keys.ts';
import type { AppDeps } from './deps.ts';
import type { ErrorCode } from './errors.ts';
import type { BinaryAnswer } from './binary-answer.ts';
import type { Redirect } from './redirect.ts';
import type { RouteScope, ScopedInput } from './route-scope.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type PrincipalType = 'user' | 'client';
export { API_KEY_SCOPES, type ApiKeyScope } from '../../sql/api-keys.ts';

/** Claims of a verified access token (docs/interface.md §2). */
export type AccessClaims = {
  sub: string;
  userId: string;
  agencyId: string;
  type: PrincipalType;
  iat: number;
  exp: number;
};

export type Policy = { subject: string; action: string };

/**
 * An ingestion route also accepts an API key (`Authorization: Bearer agk_...`) that carries
 * `scope`; `keyOnly`: only a key. Every other route answers 401 to a key.
 */
export type ApiKeyAccess = { scope: ApiKeyScope; keyOnly?: boolean };

type Schemas = { params?: TSchema; query?: TSchema; body?: TSchema };
type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;

export type RouteInput<S extends Schemas, A extends 'jwt' | 'public', Sc extends RouteScope | undefined = undefined> = {
  params: Infer<S['params']>;
  query: Infer<S['query']>;
  body: Infer<S['body']>;
  auth: A extends 'jwt' ? AccessClaims : AccessClaims | undefined;
  deps: AppDeps;
  ctx: Context;
} & ScopedInput<Sc>;

export type Response = { description: string; schema?: TSchema };
type Responses = Record<number, Response>;

/**
 * What a handler may return: the `Static<>` type of the schema declared for the success status,
 * or a `Redirect`. A status without a schema (204, a download) leaves the return type open.
 */
/** A schema's type as a handler may return it: arrays from a SQL module arrive `readonly`. */
type Answer<T> = T extends readonly (infer E)[] ? readonly Answer<E>[] : T extends object ? { readonly [K in keyof T]: Answer<T[K]> } : T;

export type SuccessBody<R, St> = St extends keyof R
  ? R[St] extends { schema: infer T extends TSchema }
    ? Answer<Static<T>> | Redirect | BinaryAnswer
    : unknown
  : unknown;

export type RouteSpec<
  S extends Schemas,
  A extends 'jwt' | 'public',
  R extends Responses = Responses,
  St extends number = number,
  Sc extends RouteScope | undefined = undefined,
> = {
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
  /**
   * The resource of the caller's agency the route acts under (`scope: AGENT_SCOPE`, app/core/route-scope.ts):
   * the chain looks it up from its path parameter after validation, answers its 404 when the
   * agency has none with that id, and gives the handler the row (`input.agent`). Its 404 is
   * documented and declared from here, never in `errors`. Needs `auth: 'jwt'`.
   */
  scope?: Sc;
  /** Also authenticated by an API key (app/core/api-key-auth.ts); `policy` then applies to user tokens only. */
  apiKey?: ApiKeyAccess;
  /** This route's rate limit (ADR 0100); a route without one is not limited. */
  rateLimit?: RouteRateLimit;
  schemas?: S;
  /** A non-JSON body (an image), read whole into a Buffer at `ctx.request.body` instead of parsed as JSON. */
  binaryBody?: BinaryBody;
  /**
   * The request body: `limitBytes` replaces `BODY_LIMIT_BYTES` for this route (larger bodies get
   * 413); `raw`: the body is not parsed as JSON, the handler reads it (a binary protocol).
   */
  body?: { limitBytes: number; raw?: boolean };
  /** Status of a successful answer. Default 200; 204 sends no body. */
  status?: St;
  /**
   * Answers by status. The success status's schema types the handler's return value and, when
   * `NODE_ENV=test`, checks every answer at run time (app/core/response-check.ts). 401, 403 and
   * 429 are added to the OpenAPI document from `auth`, `principal`/`policy` and the rate limit;
   * declare them here only for a route-specific meaning (a wrong password), which is appended.
   */
  responses: R;
  /**
   * The coded errors the handler can answer (`errors: [AI_CONVERSATION_NOT_FOUND]`, each area's errors.ts):
   * the OpenAPI document lists them per status, and in tests answering one not listed here is a
   * 500 (app/core/declared-errors.ts). The chain's own (`CORE.SERVICE_UNAVAILABLE`, the
   * idempotency codes, the 429, the scope's 404) are not listed.
   */
  errors?: readonly ErrorCode[];
  /**
   * The handler only reads, so it may be run a second time on a fresh database connection when
   * the first one dies (app/core/database-faults.ts). Default: true for GET, false otherwise; a
   * GET that writes (an OAuth callback) sets `false`.
   */
  readOnly?: boolean;
  /**
   * A POST that creates something: an `Idempotency-Key` request header makes a retry replay the
   * first answer instead of creating again (app/core/idempotency.ts, docs/architecture.md).
   */
  idempotent?: boolean;
  /** Mount the route only when this holds; elsewhere the path answers 404. */
  enabled?: (deps: AppDeps) => boolean;
  handler: (input: RouteInput<S, A, Sc>) => Promise<SuccessBody<R, St>> | SuccessBody<R, St>;
};

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

/** A declared route: the single source for mounting, validation and the OpenAPI document. */
export type Route = RouteSpec<Schemas, 'jwt' | 'public', Responses, number, RouteScope | undefined>;

export function defineRoute<
  const S extends Schemas = Record<never, never>,
  const A extends 'jwt' | 'public' = 'jwt',
  const R extends Responses = Responses,
  const St extends number = 200,
  Sc extends RouteScope | undefined = undefined,
>(spec: RouteSpec<S, A, R, St, Sc>): Route {
  return spec as unknown as Route;
}

/** `/ai/agents/:agentId` -> `/api/ai/agents/:agentId`. */
export const API_PREFIX = '/api';
export const fullPath = (route: Pick<Route, 'path'>) => `${API_PREFIX}${route.path}`;
