import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import koaJwt from 'koa-jwt';
import type { Context, Middleware, Next } from 'koa';
import { userHasPermission } from '../../sql/policies.ts';
import type { AppDeps } from './deps.ts';
import { forbidden, unauthorized } from './errors.ts';
import type { AccessClaims, Policy, PrincipalType } from './route.ts';

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

/** Claims must be complete; `exp` is required (jsonwebtoken alone accepts tokens without it). */
export function isAccessClaims(payload: unknown): payload is AccessClaims {
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

/** Verifies an access token outside koa-jwt (the rate limiter's `userId` identifier uses it). */
export function verifyAccessToken(token: string, secret: string): AccessClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  try {
    const payload = jwt.verify(token, accessTokenKey(secret), { algorithms: [ACCESS_TOKEN_ALGORITHM] });
    return isAccessClaims(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies the bearer token with koa-jwt (HS256 pinned) and puts the claims on `ctx.state.auth`. */
export function authenticate(secret: string): Middleware {
  // koa-jwt hands the secret to jsonwebtoken unchanged; its types predate KeyObject support there.
  const key = accessTokenKey(secret) as unknown as koaJwt.Secret;
  const verify = koaJwt({ secret: key, algorithms: [ACCESS_TOKEN_ALGORITHM], key: 'auth' });
  return async function requireAccessToken(ctx: Context, next: Next) {
    if (ctx.get('authorization').length > MAX_TOKEN_LENGTH + 'Bearer '.length) throw unauthorized();
    try {
      await verify(ctx, async () => {});
    } catch {
      throw unauthorized();
    }
    if (!isAccessClaims(ctx.state.auth)) throw unauthorized();
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

/** 403 unless one of the caller's roles grants `{ subject, action }`, read at request time. */
export function requirePolicy(deps: AppDeps, policy: Policy): Middleware {
  return async function checkPolicy(ctx: Context, next: Next) {
    const claims = ctx.state.auth as AccessClaims;
    if (!(await userHasPermission(deps.db, claims.sub, policy.subject, policy.action))) throw forbidden();
    await next();
  };
}
