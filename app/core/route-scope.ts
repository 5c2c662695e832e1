import type { CommonQueryMethods } from 'slonik';
import type { AppDeps } from './deps.ts';
import type { CodedError, ErrorCode } from './errors.ts';

/**
 * What a route acts under: a resource of the caller's agency named by a path parameter (the
 * agent of `/ai/agents/:agentId/...`). A route declares it once (`scope` on `defineRoute`); the
 * chain (app/core/mount.ts) looks it up after validation, answers `error` when the caller's
 * agency has none with that id (another agency's looks missing), and hands the row to the
 * handler as `input[key]`. The OpenAPI document, the declared-errors check and the fuzzer read
 * the 404 from here. The area that owns the resource defines its scope (app/agents/scope.ts),
 * so that core/ imports no area.
 */
export type RouteScope<K extends string = string, T = unknown> = {
  /** The handler's input field that carries the row (`agent`), and the scope's name in the OpenAPI document. */
  key: K;
  /** The path parameter holding the id (`agentId`). */
  param: string;
  /** The coded 404 answered for an id the caller's agency does not have. */
  error: ErrorCode;
  /** Builds that error (in the area's errors.ts). */
  notFound: () => CodedError;
  /** The row with this id in this agency, or null (one `sql/` function). */
  find: (db: CommonQueryMethods, agencyId: string, id: string) => Promise<T | null>;
};

export const defineScope = <const K extends string, T>(scope: RouteScope<K, T>): RouteScope<K, T> => scope;

/** The handler input a scope adds: `{ agent: Agent }` for the agent scope, nothing without one. */
export type ScopedInput<Sc> = Sc extends RouteScope<infer K, infer T> ? { [P in K]: T } : unknown;

/** The scope's row for this request, or the scope's 404 (the chain's link before the handler). */
export async function resolveScope(
  scope: RouteScope,
  deps: AppDeps,
  agencyId: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const row = await scope.find(deps.db, agencyId, params[scope.param] as string);
  if (row === null) throw scope.notFound();
  return { [scope.key]: row };
}
