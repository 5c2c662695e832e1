import { createHash, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ACCESS_TOKEN_ALGORITHM, accessTokenKey } from '../core/auth.ts';
import type { PrincipalType } from '../core/route.ts';

/** Access tokens live 15 minutes; refresh tokens 30 days (docs/interface.md §2). */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type TokenPair = { accessToken: string; refreshToken: string; tokenType: 'Bearer'; expiresIn: number };

export function signAccessToken(
  principal: { id: string; organizationId: string; type: PrincipalType },
  secret: string,
  now: Date,
  ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
): string {
  const iat = Math.floor(now.getTime() / 1000);
  return jwt.sign(
    {
      sub: principal.id,
      userId: principal.id,
      agencyId: principal.organizationId,
      type: principal.type,
      iat,
      exp: iat + ttlSeconds,
    },
    accessTokenKey(secret),
    { algorithm: ACCESS_TOKEN_ALGORITHM },
  );
}

/** An opaque refresh token (256 random bits) and the SHA-256 digest that is stored instead of it. */
export function newRefreshToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashRefreshToken(token) };
}

export const hashRefreshToken = (token: string) => createHash('sha256').update(token).digest();
