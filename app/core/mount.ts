import Router from '@koa/router';
import type { Store } from '@agents/rate-limit';
import type { Context, Middleware, Next } from 'koa';
import qs from 'qs';
import { authenticateIngestion } from './api-key-auth.ts';
import { authenticate, requireAccess, requirePrincipal } from './auth.ts';
import { BinaryAnswer } from './binary-answer.ts';
import { bodyLinks } from './body-readers.ts';
import { databaseFaults } from './database-faults.ts';
import { declaredErrors } from './declared-errors.ts';
import type { AppDeps } from './deps.ts';
import { HttpError } from './errors.ts';
import { IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf, runIdempotently } from './idempotency.ts';
import { isJsonRequest } from './json-body.ts';
import { NotModified } from './not-modified.ts';
import { Redirect } from './redirect.ts';
import { decodePercent, decodeQueryComponent } from './percent-decoding.ts';
import { compileResponseCheck } from './response-check.ts';
import { API_PREFIX, apiKeyAccessOf, endUserAuthOf, grantsOf, type AccessClaims, type Route } from './route.ts';
import { resourceScopeOf, ScopeLookup, type ActingScope } from './route-scope.ts';
import { routeLimiter } from './route-rate-limit.ts';
import { compileValidator, type Validator } from './validation.ts';

/**
 * Parses a query string into nested objects and arrays: `tags[0]=a&sort[0][field]=name`.
 * Bounded so that a hostile query cannot build large structures.
 */
export function parseQuery(querystring: string): Record<string, unknown> {
  return qs.parse(querystring, {
    depth: 3,
    arrayLimit: 100,
    parameterLimit: 200,
    allowDots: false,
    decoder: (text) => decodeQueryComponent(text),
  });
}

/**
 * Mounts every route under `/api` with its chain, always in this order:
 * (outside production) declared-errors check -> rate limit -> [authentication -> principal type -> policy
 * -> Content-Encoding gate -> body -> validation -> scope -> handler].
 * A route declaring `idempotent: true` runs its handler under an `Idempotency-Key` when the
 * request sends one (app/core/idempotency.ts): handler and answer record share one transaction.
 * The limiter comes first, before the body is even read, so that every request to a limited route
 * counts, malformed or oversized bodies included (docs/interface.md §8). Credentials come next and
 * the body last: a request refused for its credentials costs a header check whatever its body
 * (nothing is inflated or parsed). The body's gate and reader follow its declared kind
 * (app/core/body-readers.ts): only a route that takes an API key accepts an encoded body, once
 * its key or token is checked; any other answers 415 to one (app/core/content-encoding.ts).
 * A route that takes an API key (`auth: { apiKey }` or `{ jwtOrApiKey }`) hands its handler the
 * caller that app/core/api-key-auth.ts established; any other, the verified token's claims.
 * A route's `scope` (app/core/route-scope.ts) is read beside the policy query when its id is
 * well-formed (one database wait, not two in series) and answered after validation: a malformed id
 * is a 400 without any lookup, and an id of another agency is the scope's 404 before the handler runs.
 * The bracketed part runs under `databaseFaults`: a lost database connection is retried once for a
 * read-only route and is otherwise a 503 with Retry-After (ADR 0065); the body readers skip a body
 * already read, so a retry reads nothing twice.
 *
 * `routes` are mounted as given (the app has already left out those whose `enabled` is false).
 * Each route's limiter is built from its own `rateLimit` and counts in `rateLimitStore`; without
 * a store no route is limited (the benches, the fuzzer and most tests).
 */
export function buildRouter(routes: Route[], deps: AppDeps, rateLimitStore: Store | undefined): Router {
  const router = new Router({ prefix: API_PREFIX });
  const requireToken = authenticate(deps.config.jwtSecret, deps.clock);
  for (const route of routes) {
    const chain: Middleware[] = [];
    const checkErrors = declaredErrors(route, deps);
    if (checkErrors) chain.push(checkErrors);
    const limiter = rateLimitStore && routeLimiter(route, deps, rateLimitStore);
    if (limiter) chain.push(limiter);
    const guarded: Middleware[] = [];
    // The handler needs its own layer (for raw path captures), which exists once registered.
    const registered: { layer?: RouteLayer } = {};
    const layerOf = () => registered.layer!;
    const scopeLookup = resourceScopeOf(route) && scopeLookupOf(route, deps, layerOf);
    const apiKey = apiKeyAccessOf(route.auth);
    const endUser = endUserAuthOf(route.auth);
    // Who the caller may be: the route's grants and, for a scoped route, the organization it acts in.
    const access = () =>
      requireAccess(
        deps,
        // An ingestion route's token caller acts in an organization like a scoped route's (its `auth` carries it).
        { grants: grantsOf(route.policy), acts: route.scope !== undefined || apiKey !== undefined },
        scopeLookup && ((ctx, organizationId) => scopeLookup.start(ctx, organizationId)),
      );
    if (route.scope && route.auth !== 'jwt' && !(apiKey && !apiKey.keyOnly)) {
      throw new Error(`${route.method} ${route.path}: a scope needs a user's access token (auth 'jwt' or jwtOrApiKey)`);
    }
    if (apiKey) {
      guarded.push(authenticateIngestion(deps, apiKey, requireToken, access()));
    } else if (endUser) {
      // The end user's session, its channel and the page's origin (its area's rules): the handler's `auth`.
      guarded.push(async function authenticateEndUser(ctx: Context, next: Next) {
        ctx.state.caller = await endUser.authenticate(deps, ctx);
        await next();
      });
    } else if (route.auth === 'jwt') {
      guarded.push(requireToken);
      if (route.principal) guarded.push(requirePrincipal(route.principal));
      guarded.push(access());
    }
    guarded.push(...bodyLinks(route, deps.config.bodyLimitBytes));
    guarded.push(handle(route, deps, layerOf, scopeLookup));
    chain.push(databaseFaults(guarded, { readOnly: isReadOnly(route) }));
    registered.layer = router.register(route.path, [route.method], chain, { name: `${route.method} ${route.path}` }) as RouteLayer;
  }
  return router;
}

/** A GET is read-only, and so safe to run twice, unless it says `readOnly: false`. */
const isReadOnly = (route: Route) => route.readOnly ?? route.method === 'GET';

/** The router's layer of one route: its raw captures, before @koa/router's lossy decoding. */
type RouteLayer = { captures(path: string): string[]; paramNames: Array<{ name: string }> };

/** Path parameters decoded by the project's one rule for bad bytes (see percent-decoding.ts). */
function pathParams(layer: RouteLayer, path: string): Record<string, string> {
  const captures = layer.captures(path);
  return Object.fromEntries(layer.paramNames.map((param, index) => [param.name, decodePercent(captures[index] ?? '')]));
}

/** The route's scope link; the scope's id must be a validated path parameter of a route that takes a user token. */
function scopeLookupOf(route: Route, deps: AppDeps, layerOf: () => RouteLayer): ScopeLookup {
  const scope = resourceScopeOf(route)!;
  if (route.auth !== 'jwt' || !route.path.includes(`:${scope.param}`) || !route.schemas?.params) {
    throw new Error(
      `${route.method} ${route.path}: scope \`${scope.key}\` needs auth 'jwt' and the validated path parameter :${scope.param}`,
    );
  }
  const validateParams = compileValidator('params', route.schemas.params);
  return new ScopeLookup(scope, deps, (ctx) => {
    try {
      return (validateParams(pathParams(layerOf(), ctx.path)) as Record<string, unknown>)[scope.param] as string;
    } catch {
      return undefined; // the validation link answers the 400, after the policy check
    }
  });
}

function handle(route: Route, deps: AppDeps, layerOf: () => RouteLayer, scopeLookup: ScopeLookup | undefined): Middleware {
  const validators: Partial<Record<'params' | 'query' | 'body', Validator>> = {};
  if (route.schemas?.params) validators.params = compileValidator('params', route.schemas.params);
  if (route.schemas?.query) validators.query = compileValidator('query', route.schemas.query);
  if (route.schemas?.body) validators.body = compileValidator('body', route.schemas.body);
  const successStatus = route.status ?? 200;
  // In tests every success answer is checked against the route's declared schema (ADR 0103).
  const checkResponse = deps.config.nodeEnv === 'test' ? compileResponseCheck(route, successStatus) : undefined;
  // A JSON body is validated; any other kind arrives as its reader left it (a Buffer, decoded spans).
  const readAs = route.body && route.body.kind !== 'json' ? 'read' : 'validated';
  // A route that takes an API key or an end user gets the caller its authentication established; any other, the token's claims.
  const authOf =
    apiKeyAccessOf(route.auth) || endUserAuthOf(route.auth) ? (ctx: Context) => ctx.state.caller : (ctx: Context) => ctx.state.auth;

  return async function routeHandler(ctx: Context, _next: Next) {
    if (route.schemas?.body && ctx.request.length && !isJsonRequest(ctx)) {
      throw new HttpError(415, 'Content-Type must be application/json');
    }
    const params = validators.params ? validators.params(pathParams(layerOf(), ctx.path)) : {};
    const query = validators.query ? validators.query(parseQuery(ctx.querystring)) : {};
    const body = readAs === 'read' ? ctx.request.body : validators.body ? validators.body(ctx.request.body ?? {}) : {};
    const acting = ctx.state.acting as ActingScope | undefined;
    const scoped = scopeLookup
      ? await scopeLookup.resolve(ctx, acting!, params as Record<string, unknown>)
      : route.scope
        ? { scope: acting }
        : {};
    const invoke = (handlerDeps: AppDeps) =>
      route.handler({ ...scoped, params, query, body, auth: authOf(ctx), deps: handlerDeps, ctx } as Parameters<Route['handler']>[0]);
    const key = route.idempotent ? idempotencyKeyOf(ctx) : undefined;
    if (key !== undefined) {
      const answer = await runIdempotently({
        deps,
        ctx,
        route,
        key,
        auth: ctx.state.auth as AccessClaims | undefined,
        acting: (ctx.state.acting as ActingScope | undefined)?.organizationId,
        status: successStatus,
        run: async (transactionDeps) => {
          const result = await invoke(transactionDeps);
          checkResponse?.(result);
          return result;
        },
      });
      if (answer.replayed) ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
      ctx.status = answer.status;
      if (answer.status !== 204) ctx.body = answer.body;
      return;
    }
    const result = await invoke(deps);
    if (result instanceof BinaryAnswer) {
      ctx.status = successStatus;
      ctx.type = result.contentType;
      ctx.body = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
      return;
    }
    if (result instanceof Redirect) {
      ctx.redirect(result.location);
      ctx.status = result.status;
      return;
    }
    if (result instanceof NotModified) {
      ctx.status = 304;
      return;
    }
    checkResponse?.(result);
    ctx.status = successStatus;
    if (successStatus !== 204) ctx.body = result;
  };
}
