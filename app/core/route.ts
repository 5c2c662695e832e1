import type { Duration } from '@agents/rate-limit';
import type { IdentifierType } from '@agents/rate-limit/koa';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Upload } from './upload-body.ts';
import type { ApiKeyScope } from '../../sql/api-keys.ts';
import type { AppDeps } from './deps.ts';
import type { ErrorCode } from './errors.ts';
import type { BinaryAnswer } from './binary-answer.ts';
import type { Redirect } from './redirect.ts';
import type { AnyScope, ScopedInput } from './route-scope.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type PrincipalType = 'user' | 'client';
export { API_KEY_SCOPES, type ApiKeyScope } from '../../sql/api-keys.ts';

/**
 * Claims of a verified access token (docs/interface.md §2). `organizationId` is the user's own
 * organization (the token's `agencyId` claim, read only by app/core/auth.ts); a route that acts in
 * an organization reads its handler's `scope.organizationId` instead (app/core/route-scope.ts).
 */
export type AccessClaims = {
  sub: string;
  userId: string;
  organizationId: string;
  type: PrincipalType;
  iat: number;
  exp: number;
};

/**
 * Every grant a route may require, `{ subject, action }` (docs/interface.md §2): a typed list, so a
 * misspelt subject or action fails to compile.
 */
export const POLICIES = [
  { subject: 'ai.agent', action: 'read' },
  { subject: 'ai.agent', action: 'create' },
  { subject: 'ai.agent', action: 'update' },
  { subject: 'ai.approval', action: 'update' },
  { subject: 'organization', action: 'read' },
  { subject: 'organization', action: 'update' },
  { subject: 'organization.member', action: 'read' },
  { subject: 'organization.member', action: 'create' },
  { subject: 'organization.member', action: 'delete' },
  { subject: 'plan', action: 'read' },
  { subject: 'plan', action: 'create' },
  { subject: 'plan', action: 'update' },
  { subject: 'platform.ai.available-mcp', action: 'create' },
  { subject: 'platform.ai.available-mcp', action: 'update' },
  { subject: 'platform.ai.available-mcp', action: 'delete' },
  { subject: 'platform.ai.model-pricing', action: 'update' },
] as const;
export type Policy = (typeof POLICIES)[number];

/** A route's grant: one policy, or several of which any one suffices (answering an approval: `ai.approval` or `ai.agent` update). */
export type RoutePolicy = Policy | readonly Policy[];

/** The grants a route's policy accepts (any one of them), none for a route without one. */
export const grantsOf = (policy: RoutePolicy | undefined): readonly Policy[] =>
  policy === undefined ? [] : 'subject' in policy ? [policy] : policy;

/** `update` on `ai.agent`, or `update` on `ai.approval` or ... : how the docs and the OpenAPI document name a route's policy. */
export const describePolicy = (policy: RoutePolicy, mark = (text: string) => text): string =>
  grantsOf(policy)
    .map((grant) => `${mark(grant.action)} on ${mark(grant.subject)}`)
    .join(' or ');

/**
 * How a route authenticates an end user of an agent's web channel (its session token), defined by
 * the area that owns the channel (app/channel/session-auth.ts), so that core imports no area:
 * `authenticate` establishes the caller the handler gets as `auth` (or throws its 401/403/404),
 * `identify` names the caller for the route's rate limit (undefined: the client address), and
 * `errors` are the coded errors `authenticate` answers.
 */
export type EndUserAuth<C = unknown> = {
  authenticate(deps: AppDeps, ctx: Context): Promise<C>;
  identify(deps: AppDeps, ctx: Context): string | undefined;
  errors: readonly ErrorCode[];
};

/**
 * The credential a route takes, which types its handler's `auth` (`AuthOf`):
 * - `'jwt'`: a user's or client's access token (401 otherwise), `AccessClaims`;
 * - `'public'`: none (a token, if verified by another link, may still be there);
 * - `{ apiKey: scope }`: only an API key (`Authorization: Bearer agk_...`) carrying `scope`, an `ApiKeyCaller`;
 * - `{ jwtOrApiKey: scope }`: such a key, or a user's (not a client's) access token, to which
 *   the route's `policy` applies; an `IngestionCaller`.
 * - `{ endUser: auth }`: an end user's session token of an agent's web channel, only (`EndUserAuth`);
 *   a staff token there, and a session token on any other route, are 401.
 * A route that takes a key or an end user declares no `principal`, and a key-only or end-user one no
 * `policy` (the types refuse them).
 * Every route that takes no key answers 401 to one (app/core/api-key-auth.ts).
 */
export type RouteAuth = 'jwt' | 'public' | { apiKey: ApiKeyScope } | { jwtOrApiKey: ApiKeyScope } | { endUser: EndUserAuth };

/** The caller of a route that took an API key: the key and the organization it belongs to. */
export type ApiKeyCaller = { via: 'apiKey'; organizationId: string; apiKeyId: string };
/** A user who called a `jwtOrApiKey` route with an access token: the user and their organization. */
export type TokenCaller = { via: 'token'; organizationId: string; userId: string; claims: AccessClaims };
/** The caller of a `jwtOrApiKey` route: tell them apart by `via`. */
export type IngestionCaller = ApiKeyCaller | TokenCaller;

/** The API key a route takes (`scope`; `keyOnly`: nothing else), read from its `auth`. */
export type ApiKeyAccess = { scope: ApiKeyScope; keyOnly: boolean };

/** The API key `auth` takes, or undefined for a route that takes none. */
export function apiKeyAccessOf(auth: RouteAuth): ApiKeyAccess | undefined {
  if (typeof auth === 'string') return undefined;
  if ('apiKey' in auth) return { scope: auth.apiKey, keyOnly: true };
  return 'jwtOrApiKey' in auth ? { scope: auth.jwtOrApiKey, keyOnly: false } : undefined;
}

/** The end-user authentication `auth` takes, or undefined for a route of another credential. */
export const endUserAuthOf = (auth: RouteAuth): EndUserAuth | undefined =>
  typeof auth === 'object' && 'endUser' in auth ? auth.endUser : undefined;

type AuthOf<A> = A extends 'jwt'
  ? AccessClaims
  : A extends { apiKey: ApiKeyScope }
    ? ApiKeyCaller
    : A extends { jwtOrApiKey: ApiKeyScope }
      ? IngestionCaller
      : A extends { endUser: EndUserAuth<infer C> }
        ? C
        : AccessClaims | undefined;

/** A non-JSON body (an image) read whole into a Buffer: its documented media types. */
export type BinaryBody = { kind: 'binary'; limitBytes: number; mediaTypes: readonly string[]; description: string };

/**
 * How the request body is read: one reader per kind, chosen by the mount (app/core/mount.ts),
 * which also chooses the Content-Encoding gate (app/core/content-encoding.ts). `limitBytes`
 * bounds the body, after inflation too (413 beyond). Without `body`, a JSON body of at most
 * `BODY_LIMIT_BYTES`.
 * - `json`: parsed and validated against `schemas.body`; the handler's `body` is its type.
 * - `binary`: read whole, the handler's `body` is a Buffer.
 * - `otlp`: an OTLP/HTTP ExportTraceServiceRequest, protobuf or JSON, gzip or not, decoded by
 *   `read` (app/otlp/request-body.ts: the area's reader, so that core imports no area) before the
 *   handler runs; the handler's `body` is what `read` returns.
 * - `multipart`: one file, in the field `file` of a multipart/form-data body or as JSON
 *   `{ name, text }` (app/core/upload-body.ts): an `Upload`; `mediaTypes` are the file types the
 *   handler takes (documented, and given to clients in the generated `apiLimits`).
 */
export type RouteBody =
  | { kind: 'json'; limitBytes?: number }
  | BinaryBody
  | OtlpBody<unknown>
  | { kind: 'multipart'; limitBytes: number; mediaTypes: readonly string[] };

/** An OTLP/HTTP body and its reader: the bytes (inflated, at most `limitBytes`) to what the handler gets. */
export type OtlpBody<T> = { kind: 'otlp'; limitBytes: number; read: (ctx: Context, limitBytes: number) => Promise<T> };

type Schemas = { params?: TSchema; query?: TSchema; body?: TSchema };
type Infer<S> = S extends TSchema ? Static<S> : Record<string, never>;
type BodyOf<S extends Schemas, B> = B extends { kind: 'binary' }
  ? Buffer
  : B extends OtlpBody<infer T>
    ? T
    : B extends { kind: 'multipart' }
      ? Upload
      : Infer<S['body']>;

export type RouteInput<
  S extends Schemas,
  A extends RouteAuth,
  Sc extends AnyScope | undefined = undefined,
  B extends RouteBody | undefined = undefined,
> = {
  params: Infer<S['params']>;
  query: Infer<S['query']>;
  body: BodyOf<S, B>;
  auth: AuthOf<A>;
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
  A extends RouteAuth,
  R extends Responses = Responses,
  St extends number = number,
  Sc extends AnyScope | undefined = undefined,
  B extends RouteBody | undefined = undefined,
> = {
  method: Method;
  /** Path below the global `/api` prefix, in koa-router syntax (`/ai/agents/:agentId`). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The credential the route takes (`RouteAuth`); 401 without it. */
  auth: A;
  /** Only principals of this type may call the route (403 otherwise). */
  principal?: A extends string ? PrincipalType : never;
  /** A `{ subject, action }` grant (or several, any of which suffices) read from the database at request time (403 otherwise). */
  policy?: A extends { apiKey: ApiKeyScope } | { endUser: EndUserAuth } ? never : RoutePolicy;
  /**
   * Where the route acts (app/core/route-scope.ts): `ORGANIZATION_SCOPE`, the request's acting
   * organization (`x-org-id`, else the token's; the handler gets `scope`), or a resource of it
   * (`AGENT_SCOPE`): the chain looks it up from its path parameter after validation, answers its
   * 404 when the acting organization has none with that id, and gives the handler the row
   * (`input.agent`). Its 404 is documented and declared from here, never in `errors`. Needs `auth: 'jwt'`.
   */
  scope?: Sc;
  /** This route's rate limit (ADR 0100); a route without one is not limited. */
  rateLimit?: RouteRateLimit;
  schemas?: S;
  /** The body's kind and limit (`RouteBody`); default JSON of at most `BODY_LIMIT_BYTES`. */
  body?: B;
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
  handler: (input: RouteInput<S, A, Sc, B>) => Promise<SuccessBody<R, St>> | SuccessBody<R, St>;
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
   * the API key presented (`apiKey`: a stored key, else the verified user, else the address), or
   * the verified token's own organization (`organization`: its users share one window; agency staff
   * acting in a business count in their agency's; without a verified token, the address).
   */
  identifierType: IdentifierType | 'apiKey' | 'organization';
  /**
   * `interface`: a row of the interface document's "Limits per endpoint" table (13 rows);
   * `project`: one of the project's own limits (ADR 0067).
   */
  source: 'interface' | 'project';
  /** Token in the RateLimit headers. Default derived from the path (see `policyNameOf`). */
  policyName?: string;
};

/** A declared route: the single source for mounting, validation and the OpenAPI document. */
export type Route = RouteSpec<Schemas, RouteAuth, Responses, number, AnyScope | undefined, RouteBody | undefined>;

export function defineRoute<
  const S extends Schemas = Record<never, never>,
  const A extends RouteAuth = 'jwt',
  const R extends Responses = Responses,
  const St extends number = 200,
  Sc extends AnyScope | undefined = undefined,
  const B extends RouteBody | undefined = undefined,
>(spec: RouteSpec<S, A, R, St, Sc, B>): Route {
  return spec as unknown as Route;
}

/** `/ai/agents/:agentId` -> `/api/ai/agents/:agentId`. */
export const API_PREFIX = '/api';
export const fullPath = (route: Pick<Route, 'path'>) => `${API_PREFIX}${route.path}`;
