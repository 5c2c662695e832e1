import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Context, Middleware, Next } from 'koa';
import { findAccess } from '../../sql/policies.ts';
import type { AppDeps } from './deps.ts';
import { forbidden, unauthorized } from './errors.ts';
import type { AccessClaims, Policy, PrincipalType } from './route.ts';
import type { ActingScope } from './route-scope.ts';

/** Longer Authorization headers are refused before any parsing. */
export const MAX_TOKEN_LENGTH = 4096;

/** The only algorithm accepted for access tokens (docs/interface.md §2). */
export const ACCESS_TOKEN_ALGORITHM = 'HS256';

const hmacKeys = new Map<string, KeyObject>();

/**
 * The HMAC key of `secret` as a KeyObject, created once per secret. Given a string, jsonwebtoken first tries
 * to read it as a PEM public key (`createPublicKey`, which throws for an HMAC secret) and only then makes a
 * secret key, on every call: ~0.45 ms of CPU per verification here, a third of a cached analytics request.
 */
export function accessTokenKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    hmacKeys.set(secret, key);
  }
  return key;
}

/** The payload of an access token as issued (docs/interface.md §2): `agencyId` is the claim naming the user's organization. */
type IssuedClaims = { sub: string; userId: string; agencyId: string; type: 'user' | 'client'; iat: number; exp: number };

/** Claims must be complete; `exp` is required (jsonwebtoken alone accepts tokens without it). */
function isIssuedClaims(payload: unknown): payload is IssuedClaims {
  if (payload === null || typeof payload !== 'object') return false;
  const claims = payload as Record<string, unknown>;
  return (
    typeof claims.sub === 'string' &&
    claims.userId === claims.sub &&
    typeof claims.agencyId === 'string' &&
    (claims.type === 'user' || claims.type === 'client') &&
    typeof claims.iat === 'number' &&
    typeof claims.exp === 'number'
  );
}

/** jsonwebtoken's `clockTimestamp`: `now` in whole seconds, so that `exp` is checked against the app's clock. */
export const clockTimestampOf = (now: Date) => Math.floor(now.getTime() / 1000);

/**
 * Verifies an access token: HS256 only, `exp` required (and after `now`, the app's clock), claims
 * complete; `undefined` when any check fails. The only place the `agencyId` claim is read: from
 * here on the user's organization is `organizationId`.
 */
export function verifyAccessToken(token: string, secret: string, now: Date): AccessClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  try {
    const payload = jwt.verify(token, accessTokenKey(secret), {
      algorithms: [ACCESS_TOKEN_ALGORITHM],
      clockTimestamp: clockTimestampOf(now),
    });
    if (!isIssuedClaims(payload)) return undefined;
    const { sub, userId, agencyId, type, iat, exp } = payload;
    return { sub, userId, organizationId: agencyId, type, iat, exp };
  } catch {
    return undefined;
  }
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, one space), else `undefined`. */
export function bearerToken(ctx: Context): string | undefined {
  const parts = ctx.get('authorization').split(' ');
  return parts.length === 2 && /^Bearer$/i.test(parts[0] as string) && parts[1] !== '' ? parts[1] : undefined;
}

/** Verified claims per request: the limiter (which runs first) and authentication share one verification. */
const verified = new WeakMap<Context, AccessClaims | null>();

/** The claims of the request's bearer token, verified once per request; `undefined` for none or an invalid one. */
export function bearerClaims(ctx: Context, secret: string, clock: () => Date): AccessClaims | undefined {
  let claims = verified.get(ctx);
  if (claims === undefined) {
    const token = bearerToken(ctx);
    claims = (token === undefined ? undefined : verifyAccessToken(token, secret, clock())) ?? null;
    verified.set(ctx, claims);
  }
  return claims ?? undefined;
}

/** Requires a valid access token and puts its claims on `ctx.state.auth`; 401 otherwise. */
export function authenticate(secret: string, clock: () => Date): Middleware {
  return async function requireAccessToken(ctx: Context, next: Next) {
    const claims = bearerClaims(ctx, secret, clock);
    if (claims === undefined) throw unauthorized();
    ctx.state.auth = claims;
    await next();
  };
}

/** 403 unless the token was issued to a principal of this type (the user/client type check). */
export function requirePrincipal(type: PrincipalType): Middleware {
  return async function checkPrincipal(ctx: Context, next: Next) {
    if ((ctx.state.auth as AccessClaims).type !== type) throw forbidden();
    await next();
  };
}

/** The `x-org-id` header's value: a UUID (any other value names no organization the caller may act in). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization a request asks to act in: `x-org-id` when sent, else the token's own.
 * Undefined for a header that is not an organization id (answered 403 like any other).
 */
export function requestedOrganization(ctx: Context, claims: AccessClaims): string | undefined {
  const header = ctx.get('x-org-id');
  if (header === '') return claims.organizationId;
  return UUID.test(header) ? header.toLowerCase() : undefined;
}

/**
 * Who the caller is allowed to be, read from PostgreSQL at request time in one statement
 * (`findAccess`): 401 when the token's user no longer exists in its organization (a removed member);
 * 403 unless one of the user's roles grants one of `grants` (when there are any), and, for a route
 * that acts in an organization (`acts`), unless the caller may act in the requested one (its own;
 * for a user of an AGENCY, also its businesses). Sets `ctx.state.acting` (an `ActingScope`).
 * `beside` starts work that only needs the requested organization while the query runs (the route
 * scope's read, app/core/route-scope.ts); it must not answer or write anything.
 */
export function requireAccess(
  deps: AppDeps,
  route: { grants: readonly Policy[]; acts: boolean },
  beside?: (ctx: Context, organizationId: string) => void,
): Middleware {
  return async function checkAccess(ctx: Context, next: Next) {
    const claims = ctx.state.auth as AccessClaims;
    const organizationId = route.acts ? requestedOrganization(ctx, claims) : claims.organizationId;
    if (organizationId === undefined) throw forbidden();
    const found = findAccess(deps.db, {
      userId: claims.sub,
      organizationId: claims.organizationId,
      actingOrganizationId: organizationId,
      grants: route.grants,
    });
    beside?.(ctx, organizationId);
    const access = await found;
    if (access === null) throw unauthorized();
    if (!access.granted || !access.acting) throw forbidden();
    ctx.state.acting = { organizationId, userId: claims.sub } satisfies ActingScope;
    await next();
  };
}

/**
 * Whether the caller may act in `organizationId` now, with `grant` (the check `requireAccess`
 * makes for a scoped route), for a flow that began in that organization and finishes on a route
 * that names none (the MCP OAuth callback). False also for a user who no longer exists.
 */
export async function mayActIn(deps: AppDeps, claims: AccessClaims, organizationId: string, grant: Policy): Promise<boolean> {
  const access = await findAccess(deps.db, {
    userId: claims.sub,
    organizationId: claims.organizationId,
    actingOrganizationId: organizationId,
    grants: [grant],
  });
  return access !== null && access.granted && access.acting;
}
