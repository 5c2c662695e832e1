import type { Context, Middleware, Next } from 'koa';
import type { AppDeps } from './deps.ts';
import {
  CodedError,
  CORE_IDEMPOTENCY_KEY_IN_FLIGHT,
  CORE_IDEMPOTENCY_KEY_REUSED,
  CORE_RATE_LIMIT_EXCEEDED,
  CORE_SERVICE_UNAVAILABLE,
  type ErrorCode,
} from './errors.ts';
import type { Route } from './route.ts';
import { resourceScopeOf } from './route-scope.ts';

/** A coded error answered by a route that does not list it in `errors` (thrown in tests only). */
export class UndeclaredCodedError extends Error {
  constructor(route: Pick<Route, 'method' | 'path'>, error: CodedError) {
    super(`${route.method} ${route.path} answered ${error.status} ${error.errorCode}, which its route does not declare in \`errors\``, {
      cause: error,
    });
    this.name = 'UndeclaredCodedError';
  }
}

const keyOf = (declared: ErrorCode) => `${declared.status} ${declared.code}`;

/** The coded errors a route may answer: its own `errors` and the ones its chain adds (its scope's 404 among them). */
export function answerableErrors(route: Route): ErrorCode[] {
  return [
    ...(route.errors ?? []),
    ...(resourceScopeOf(route) ? [resourceScopeOf(route)!.error] : []),
    CORE_SERVICE_UNAVAILABLE,
    ...(route.idempotent ? [CORE_IDEMPOTENCY_KEY_IN_FLIGHT, CORE_IDEMPOTENCY_KEY_REUSED] : []),
    ...(route.rateLimit ? [CORE_RATE_LIMIT_EXCEEDED] : []),
  ];
}

/**
 * Holds a route to its declared `errors` (docs/api.md, Decisions), first in its chain. With
 * `NODE_ENV=test` a coded error it does not declare becomes a 500 naming route and code, so the
 * whole suite checks every declaration it reaches; in development it is answered as thrown and
 * logged as an error; production does not check (no middleware).
 */
export function declaredErrors(route: Route, deps: AppDeps): Middleware | undefined {
  const mode = deps.config.nodeEnv;
  if (mode === 'production') return undefined;
  const declared = new Set(answerableErrors(route).map(keyOf));
  return async function checkDeclaredErrors(_ctx: Context, next: Next) {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof CodedError) || declared.has(keyOf(error.declared))) throw error;
      const undeclared = new UndeclaredCodedError(route, error);
      if (mode === 'test') throw undeclared;
      deps.logger.error({ err: undeclared }, 'coded error not declared on its route');
      throw error;
    }
  };
}
