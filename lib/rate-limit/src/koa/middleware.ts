import type { Context, Middleware, Next } from 'koa';
import type { Duration } from '../duration.ts';
import { defaultErrorBody, UNAVAILABLE_BODY, type DenialInfo } from '../error-body.ts';
import { RateLimiterUnavailableError } from '../errors.ts';
import { ceilSeconds, formatPolicy, formatRateLimit, quotePolicyName } from '../headers.ts';
import { assertIdentifierType, defaultIdentifier, type IdentifierType, type ResolveIdentifier, type ResolveUser } from '../identifier.ts';
import { assertIpv6Subnet, DEFAULT_IPV6_SUBNET, ipKey, type Ipv6Subnet } from '../ip-key.ts';
import { createSlidingWindowLimiter } from '../limiter.ts';
import { MemoryStore } from '../memory-store.ts';
import { windowToMs } from '../parse-window.ts';
import { ResilientStore } from '../resilient-store.ts';
import type { Store } from '../store.ts';
import type { CheckResult, Clock, Logger, StoreErrorPolicy } from '../types.ts';

/** Declaration of a rate limit on a Koa route. */
export interface RateLimitOptions {
  /**
   * Window length: a positive integer of milliseconds, or digits followed by `ms`, `s` or `m`
   * (`"500ms"`, `"30s"`, `"5m"`). Anything else throws here.
   */
  windowMs: number | Duration;
  /** Maximum requests per window: a positive integer. Anything else throws here. */
  limit: number;
  /** `"ip"`: the request IP. `"userId"`: the verified user's `sub` or `id`, else the request IP. */
  identifierType: IdentifierType;
  /**
   * How an IPv6 client is counted by the default identifiers: by its first `ipv6Subnet` bits
   * (an integer from 32 to 128), or each full address apart with `false`. An IPv4-mapped IPv6
   * address (`::ffff:192.0.2.1`) always counts as its IPv4 address. Default: `56`.
   */
  ipv6Subnet?: Ipv6Subnet;
  /** First segment of every key: `<keyPrefix>:<endpoint>:<identifier>`. Default: `"rl"`. */
  keyPrefix?: string;
  /** Endpoint segment of the key. Default: `` `${ctx.method} ${ctx._matchedRoute ?? ctx.path}` `` (route pattern when routed). */
  endpoint?: string;
  /**
   * Where counts live; share one instance across routes. Default: a private {@link MemoryStore}.
   * Any other store than a `MemoryStore` or `ResilientStore` is wrapped in a {@link ResilientStore}
   * built from `onStoreError`, `timeoutMs` and `logger` (pass a `ResilientStore` yourself to share outage state).
   */
  store?: Store;
  /** Overrides the identifier segment entirely (`identifierType` is then only validated). */
  identifier?: ResolveIdentifier;
  /** For `userId`: returns the verified user (the limiter runs before authentication). Default: `ctx.state.user`. */
  resolveUser?: ResolveUser;
  /** Builds the 429 body (a service passes its own error envelope here). Default: `{ statusCode: 429, message: 'Too Many Requests' }`. */
  errorBody?: (denial: DenialInfo) => unknown;
  /** Policy name in the `RateLimit-Policy` and `RateLimit` headers (printable ASCII). Default: `"default"`. */
  policyName?: string;
  /** Store failure policy (see {@link ResilientStore}). `fail-closed` answers 503. Default: `"fallback-memory"`. */
  onStoreError?: StoreErrorPolicy;
  /** Per-check store timeout in milliseconds; a timeout is a store error. Default: `200`. */
  timeoutMs?: number;
  /** Receives outage and recovery messages. Default: silent. */
  logger?: Logger;
  /** Clock in epoch ms. Default: `Date.now`. */
  now?: Clock;
}

/**
 * Koa middleware enforcing a sliding-log limit per (endpoint, identifier).
 * Allowed: sets `RateLimit-Policy` and `RateLimit`, then calls `next()`.
 * Denied: 429 with `Retry-After` (seconds, >= 1, never below `t`) and the `errorBody`; `next()` is not called.
 * Declaration errors (window, limit, identifier type, policy name) throw immediately.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const windowMs = windowToMs(options.windowMs);
  const identifierType = assertIdentifierType(options.identifierType);
  const ipv6Subnet = assertIpv6Subnet(options.ipv6Subnet ?? DEFAULT_IPV6_SUBNET);
  const now = options.now ?? Date.now;
  const limiter = createSlidingWindowLimiter({ store: resolveStore(options, now), limit: options.limit, windowMs, now });
  const { limit } = limiter;
  const keyPrefix = options.keyPrefix ?? 'rl';
  const policyName = quotePolicyName(options.policyName ?? 'default');
  const policyHeader = formatPolicy(policyName, limit, windowMs);
  const identify = options.identifier ?? defaultIdentifier(identifierType, options.resolveUser, ipv6Subnet);
  const errorBody = options.errorBody ?? defaultErrorBody;

  const { checkSync } = limiter;
  const routeScope = routeScopeOf(keyPrefix, options.endpoint, '');
  // The default `ip` identifier is `ip:<ipKey(ctx.ip)>`: over an in-process store the tag joins the route's
  // scope and the address is the id, so no key string is built per request (see MemoryStore.hitSync).
  const ipScope =
    options.identifier === undefined && identifierType === 'ip' ? routeScopeOf(keyPrefix, options.endpoint, 'ip:') : undefined;

  /** Sets the headers of `result`, then calls `next()` (allowed) or answers 429 (denied). */
  const apply = (ctx: Context, next: Next, result: CheckResult): Promise<void> | undefined => {
    // `res.setHeader` is what `ctx.set` ends in for a string value, without its per-call arrays (Koa 3 response.set).
    const { res } = ctx;
    if (!result.degraded && !res.headersSent) {
      res.setHeader('RateLimit-Policy', policyHeader);
      res.setHeader('RateLimit', formatRateLimit(policyName, result.remaining, result.resetAfterMs));
    }
    if (result.allowed) return next();
    const retryAfterSeconds = ceilSeconds(result.retryAfterMs);
    ctx.status = 429;
    ctx.set('Retry-After', String(retryAfterSeconds));
    ctx.body = errorBody({ retryAfterSeconds, limit, windowMs });
    return undefined;
  };

  const checkAsync = async (ctx: Context, next: Next, identifier: string | Promise<string>): Promise<void> => {
    let result;
    try {
      result = await limiter.check(routeScope(ctx) + (await identifier));
    } catch (error) {
      if (!(error instanceof RateLimiterUnavailableError)) throw error;
      ctx.status = 503;
      ctx.body = { ...UNAVAILABLE_BODY };
      return;
    }
    await apply(ctx, next, result);
  };

  return function rateLimitMiddleware(ctx: Context, next: Next): Promise<void> | undefined {
    // In-process store and a synchronous identifier: no promise of our own on the request path.
    if (checkSync !== undefined) {
      if (ipScope !== undefined) return apply(ctx, next, checkSync(ipKey(ctx.ip, ipv6Subnet), ipScope(ctx)));
      const identifier = identify(ctx);
      if (typeof identifier === 'string') return apply(ctx, next, checkSync(identifier, routeScope(ctx)));
      return checkAsync(ctx, next, identifier);
    }
    return checkAsync(ctx, next, identify(ctx));
  };
}

function resolveStore(options: RateLimitOptions, now: Clock): Store {
  const { store } = options;
  if (store === undefined) return new MemoryStore({ now });
  if (store instanceof MemoryStore || store instanceof ResilientStore) return store;
  return new ResilientStore(store, {
    onStoreError: options.onStoreError,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    now,
  });
}

/**
 * Returns the key scope `<keyPrefix>:<endpoint>:<tag>` of a request: the explicit endpoint, else
 * `<METHOD> <route pattern, or path>`. The scope of the last (method, route) is kept, since a declaration
 * usually guards one route (the same string instance also keeps its hash); another route recomputes it.
 */
function routeScopeOf(keyPrefix: string, endpoint: string | undefined, tag: string): (ctx: Context) => string {
  if (endpoint !== undefined) {
    const fixed = `${keyPrefix}:${endpoint}:${tag}`;
    return () => fixed;
  }
  let lastMethod = '';
  let lastRoute = '';
  let lastScope = '';
  return (ctx) => {
    const matched: unknown = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const route = matched === undefined ? ctx.path : String(matched);
    const { method } = ctx;
    if (route !== lastRoute || method !== lastMethod) {
      lastMethod = method;
      lastRoute = route;
      lastScope = `${keyPrefix}:${method} ${route}:${tag}`;
    }
    return lastScope;
  };
}
