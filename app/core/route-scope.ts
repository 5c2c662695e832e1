import type { Context } from 'koa';
import type { CommonQueryMethods } from 'slonik';
import type { AppDeps } from './deps.ts';
import type { CodedError, ErrorCode } from './errors.ts';

/**
 * The organization a request acts in and who acts (docs/identity.md, "Acting in a workspace"):
 * the `x-org-id` header when sent, else the organization of the caller's token. The chain
 * (app/core/auth.ts) checks that the caller may act there before any handler runs; a handler of a
 * scoped route reads tenant data of `organizationId` only, never of the token's organization.
 */
export type ActingScope = { organizationId: string; userId: string };

/** A route that acts in an organization and names no resource of it: the handler gets `scope: ActingScope`. */
export type OrganizationScope = { readonly kind: 'organization' };

/** `scope: ORGANIZATION_SCOPE`: the route acts in the request's organization (its handler gets `scope`). */
export const ORGANIZATION_SCOPE: OrganizationScope = { kind: 'organization' };

/**
 * A route that acts in an organization under one of its resources named by a path parameter (the
 * agent of `/ai/agents/:agentId/...`). A route declares it once (`scope` on `defineRoute`); the
 * chain (app/core/mount.ts) reads it beside the access check and, after validation, answers `error`
 * when the acting organization has none with that id (another organization's looks missing), and
 * hands the row to the handler as `input[key]`, with the caller's scope (`input.scope`, `scopeOf`:
 * the organization, the resource and the user, one name each). The OpenAPI document, the
 * declared-errors check and the fuzzer read the 404 from here. The area that owns the resource
 * defines its scope (app/agents/scope.ts), so that core/ imports no area.
 */
export type RouteScope<K extends string = string, T = unknown, S = unknown> = {
  readonly kind: 'resource';
  /** The handler's input field that carries the row (`agent`), and the scope's name in the OpenAPI document. */
  key: K;
  /** The path parameter holding the id (`agentId`). */
  param: string;
  /** The coded 404 answered for an id the acting organization does not have. */
  error: ErrorCode;
  /** Builds that error (in the area's errors.ts). */
  notFound: () => CodedError;
  /** The row with this id in this organization, or null (one `sql/` function). */
  find: (db: CommonQueryMethods, organizationId: string, id: string) => Promise<T | null>;
  /** The handler's `scope`: who acts, in what organization, under what resource. */
  scopeOf(acting: ActingScope, row: T): S;
};

/** Either kind of scope a route may declare. */
export type AnyScope = OrganizationScope | RouteScope;

export const defineScope = <const K extends string, T, S>(scope: Omit<RouteScope<K, T, S>, 'kind'>): RouteScope<K, T, S> => ({
  kind: 'resource',
  ...scope,
});

/** The handler input a scope adds: `{ agent: Agent, scope: StaffScope }` for the agent scope, `{ scope: ActingScope }` for the organization's. */
export type ScopedInput<Sc> =
  Sc extends RouteScope<infer K, infer T, infer S>
    ? { [P in K]: T } & { scope: S }
    : Sc extends OrganizationScope
      ? { scope: ActingScope }
      : unknown;

/**
 * The chain's scope link (app/core/mount.ts) for one route. `start` runs beside the policy check:
 * when the request's id is well-formed it starts the lookup, so the policy query and the scope's
 * read are one wait instead of two in series. `resolve` runs after validation and answers in the
 * order the chain documents (403, then 400, then the scope's 404): a lookup started early is only
 * awaited there, its failure kept until then (never an unhandled rejection); without one (a
 * malformed id, a route without a policy) the read runs then.
 */
export class ScopeLookup {
  readonly #scope: RouteScope<string, unknown, unknown>;
  readonly #deps: AppDeps;
  /** The request's id when it passes the route's params schema, else undefined. */
  readonly #wellFormedId: (ctx: Context) => string | undefined;
  readonly #started = new WeakMap<Context, Promise<unknown>>();

  constructor(scope: RouteScope<string, unknown, unknown>, deps: AppDeps, wellFormedId: (ctx: Context) => string | undefined) {
    this.#scope = scope;
    this.#deps = deps;
    this.#wellFormedId = wellFormedId;
  }

  /** Starts the read of this request's row in the organization it asks to act in, if its id is well-formed (a retried chain starts it again). */
  start(ctx: Context, organizationId: string): void {
    const id = this.#wellFormedId(ctx);
    if (id === undefined) return;
    const read = this.#scope.find(this.#deps.db, organizationId, id);
    read.catch(() => {}); // awaited (and its failure thrown) in `resolve`; unawaited when the chain stops first
    this.#started.set(ctx, read);
  }

  /** The handler input `{ [key]: row, scope }`, or the scope's 404. `params` are the validated ones. */
  async resolve(ctx: Context, acting: ActingScope, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const started = this.#started.get(ctx);
    this.#started.delete(ctx);
    const row = await (started ?? this.#scope.find(this.#deps.db, acting.organizationId, params[this.#scope.param] as string));
    if (row === null) throw this.#scope.notFound();
    return { [this.#scope.key]: row, scope: this.#scope.scopeOf(acting, row) };
  }
}

/** The resource scope a route declares (the agent of `/ai/agents/:agentId`), undefined for none or the organization's. */
export const resourceScopeOf = (route: { scope?: AnyScope | undefined }): RouteScope | undefined =>
  route.scope?.kind === 'resource' ? route.scope : undefined;
