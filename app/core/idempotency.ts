import { createHash, createHmac } from 'node:crypto';
import { ipKey } from '@agents/rate-limit';
import type { Context } from 'koa';
import type { DatabasePool } from 'slonik';
import { findIdempotentAnswer, recordIdempotentAnswer, tryLockIdempotencyKey, type IdempotencyScope } from '../../sql/idempotency-keys.ts';
import { deriveKey } from './derived-keys.ts';
import type { AppDeps } from './deps.ts';
import { idempotencyKeyInFlight, idempotencyKeyReused, ValidationError } from './errors.ts';
import { fullPath, type AccessClaims, type Route } from './route.ts';

/** How long a key's answer is replayed. */
export const IDEMPOTENCY_TTL_HOURS = 24;
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/** 1 to 255 visible ASCII characters (a repeated header arrives joined by ", " and is refused). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const validKey = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The request's key, undefined without the header; a malformed one is a 400. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !validKey.test(raw)) {
    throw new ValidationError([{ path: ['headers', IDEMPOTENCY_KEY_HEADER], message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  return raw;
}

/**
 * The scope of a request without credentials: its client address as the rate limiter counts it
 * (`ip:` and the address through the library's `ipKey`: an IPv6 client by its
 * RATE_LIMIT_IPV6_PREFIX prefix, an IPv4-mapped address as the IPv4 one; `ctx.ip` honours
 * TRUST_PROXY_HOPS). Two clients never meet in one scope, so a key one of them used is neither an
 * oracle nor a trap for the other.
 */
export const anonymousPrincipal = (ctx: Context, deps: AppDeps) => `ip:${ipKey(ctx.ip, deps.config.rateLimitIpv6Prefix)}`;

/** JSON with object keys sorted, so that two encodings of one body have one fingerprint. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
        )
      : value;

/** A signed 64-bit advisory-lock key from the scope (SHA-256, first 8 bytes). */
const lockKeyOf = (scope: IdempotencyScope) =>
  createHash('sha256')
    .update(JSON.stringify([scope.principal, scope.endpoint, scope.key]))
    .digest()
    .readBigInt64BE(0);

export type IdempotentAnswer = { replayed: boolean; status: number; body: unknown };

/**
 * Runs a creating handler under an `Idempotency-Key` (IETF draft-ietf-httpapi-idempotency-key-header):
 * in one transaction, takes the key's advisory lock without waiting (409 while the first request
 * is in flight), replays a stored answer for the same principal, route and request fingerprint
 * (422 for another request), or runs the handler on that transaction and records its answer in
 * it. The record and the creation commit together: a retry after a COMMIT lost on the wire finds
 * the record instead of creating a second row. A handler error rolls both back (nothing is stored).
 */
export async function runIdempotently(input: {
  deps: AppDeps;
  ctx: Context;
  route: Route;
  key: string;
  auth: AccessClaims | undefined;
  /** The organization a scoped route acts in: a key used in two organizations is two keys. */
  acting?: string | undefined;
  status: number;
  run: (deps: AppDeps) => Promise<unknown>;
}): Promise<IdempotentAnswer> {
  const { deps, ctx, route, key, auth, status } = input;
  const scope: IdempotencyScope = {
    principal: auth
      ? `${auth.type}:${auth.sub}${input.acting && input.acting !== auth.organizationId ? `@${input.acting}` : ''}`
      : anonymousPrincipal(ctx, deps),
    endpoint: `${route.method} ${fullPath(route)}`,
    key,
  };
  // An HMAC, not a plain hash: the body of a registration holds a password.
  const fingerprint = createHmac('sha256', deriveKey(deps.config.jwtSecret, 'idempotency-fingerprint'))
    .update(JSON.stringify([ctx.method, ctx.path, ctx.querystring, canonical(ctx.request.body ?? null)]))
    .digest();
  return deps.db.transaction(async (tx) => {
    if (!(await tryLockIdempotencyKey(tx, lockKeyOf(scope)))) throw idempotencyKeyInFlight();
    const stored = await findIdempotentAnswer(tx, scope, IDEMPOTENCY_TTL_HOURS);
    if (stored) {
      if (!stored.fingerprint.equals(fingerprint)) throw idempotencyKeyReused();
      return { replayed: true, status: stored.status, body: stored.body };
    }
    // The handler's queries (and its own transactions, as savepoints) run on this transaction.
    const body = await input.run({ ...deps, db: tx as unknown as DatabasePool });
    await recordIdempotentAnswer(tx, scope, { fingerprint, status, body });
    return { replayed: false, status, body };
  });
}
