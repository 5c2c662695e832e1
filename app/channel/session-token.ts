import jwt from 'jsonwebtoken';
import { ACCESS_TOKEN_ALGORITHM, accessTokenKey, bearerToken, clockTimestampOf, MAX_TOKEN_LENGTH } from '../core/auth.ts';
import type { Context } from 'koa';

/** Lifetime of an end user's session token, in seconds (the widget renews it before it runs out). */
export const SESSION_TTL_SECONDS = 3_600;

/**
 * An end user's session token (docs/channel.md): a JWT (HS256, `JWT_SECRET`) of `type: "end_user"`
 * naming the end user (`sub`) and the agent and organization of its channel. Accepted by the
 * `/api/public/...` routes only: staff routes refuse any `type` but `user` and `client`, and these
 * routes refuse any but `end_user`.
 */
export type SessionClaims = { sub: string; type: 'end_user'; agentId: string; organizationId: string; iat: number; exp: number };

export function signSessionToken(
  session: { endUserId: string; agentId: string; organizationId: string },
  secret: string,
  now: Date,
): string {
  const iat = Math.floor(now.getTime() / 1000);
  const claims: SessionClaims = {
    sub: session.endUserId,
    type: 'end_user',
    agentId: session.agentId,
    organizationId: session.organizationId,
    iat,
    exp: iat + SESSION_TTL_SECONDS,
  };
  return jwt.sign(claims, accessTokenKey(secret), { algorithm: ACCESS_TOKEN_ALGORITHM });
}

function isSessionClaims(payload: unknown): payload is SessionClaims {
  if (payload === null || typeof payload !== 'object') return false;
  const claims = payload as Record<string, unknown>;
  return (
    claims.type === 'end_user' &&
    typeof claims.sub === 'string' &&
    typeof claims.agentId === 'string' &&
    typeof claims.organizationId === 'string' &&
    typeof claims.iat === 'number' &&
    typeof claims.exp === 'number'
  );
}

const verified = new WeakMap<Context, SessionClaims | null>();

/**
 * The request's session claims (HS256 only, `exp` required and after `now`, the app's clock),
 * verified once per request; undefined for none or an invalid one.
 */
export function sessionClaims(ctx: Context, secret: string, now: () => Date): SessionClaims | undefined {
  let claims = verified.get(ctx);
  if (claims === undefined) {
    const token = bearerToken(ctx);
    claims = null;
    if (token !== undefined && token.length <= MAX_TOKEN_LENGTH) {
      try {
        const payload = jwt.verify(token, accessTokenKey(secret), {
          algorithms: [ACCESS_TOKEN_ALGORITHM],
          clockTimestamp: clockTimestampOf(now()),
        });
        if (isSessionClaims(payload)) claims = payload;
      } catch {
        claims = null;
      }
    }
    verified.set(ctx, claims);
  }
  return claims ?? undefined;
}
