import { uuidv7 } from 'uuidv7';
import type { DatabaseTransactionConnection } from 'slonik';
import { findLoginCandidate, findTokenSubject } from '../../sql/users.ts';
import {
  findRefreshTokenForUpdate,
  insertRefreshToken,
  markRefreshTokenRotated,
  revokeRefreshTokenFamily,
  revokeRefreshTokensOfUser,
} from '../../sql/refresh-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { HttpError } from '../core/errors.ts';
import type { PrincipalType } from '../core/route.ts';
import { emailNotVerified } from './errors.ts';
import { verifyPassword } from './passwords.ts';
import { REFRESH_TOKEN_TTL_MS, hashRefreshToken, newRefreshToken, signAccessToken, type TokenPair } from './tokens.ts';
import { sendEmailVerificationCode } from './verification-codes.ts';

/** One message for every failed sign-in, so a caller cannot tell which part was wrong. */
export const invalidCredentials = () => new HttpError(401, 'Invalid email or password');
const invalidRefreshToken = () => new HttpError(401, 'Invalid refresh token');

export type Subject = { id: string; organizationId: string; type: PrincipalType };

export async function issueTokens(
  deps: AppDeps,
  db: Pick<DatabaseTransactionConnection, 'query'>,
  subject: Subject,
  familyId: string,
): Promise<TokenPair> {
  const now = deps.clock();
  const refresh = newRefreshToken();
  await insertRefreshToken(db as DatabaseTransactionConnection, {
    familyId,
    userId: subject.id,
    hash: refresh.hash,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
  });
  return {
    accessToken: signAccessToken(subject, deps.config.jwtSecret, now, deps.accessTokenTtlSeconds),
    refreshToken: refresh.token,
    tokenType: 'Bearer',
    expiresIn: deps.accessTokenTtlSeconds,
  };
}

/**
 * Email and password sign-in for a principal of `type`; starts a new refresh-token family.
 * A principal whose email is not verified gets 403 `IDENTITY.EMAIL_NOT_VERIFIED` and a fresh code.
 */
export async function logIn(deps: AppDeps, type: PrincipalType, email: string, password: string): Promise<TokenPair> {
  const candidate = await findLoginCandidate(deps.db, type, email);
  const valid = await verifyPassword(candidate?.passwordHash, password);
  if (!candidate || !valid) throw invalidCredentials();
  // Only after a correct password, so the answer reveals nothing to someone guessing.
  if (!candidate.emailVerified) {
    await deps.db.transaction((tx) => sendEmailVerificationCode(deps, tx, { id: candidate.id, email: candidate.email }));
    throw emailNotVerified();
  }
  return issueTokens(deps, deps.db, candidate, uuidv7());
}

/**
 * Rotates a refresh token. Presenting a token that was already rotated or revoked means it
 * leaked: the whole family is revoked, so the thief and the owner must both sign in again.
 */
export async function refresh(deps: AppDeps, token: string): Promise<TokenPair> {
  const outcome = await deps.db.transaction(async (tx) => {
    const stored = await findRefreshTokenForUpdate(tx, hashRefreshToken(token));
    if (!stored) return { error: invalidRefreshToken() };
    if (stored.rotated || stored.revoked) {
      await revokeRefreshTokenFamily(tx, stored.familyId);
      return { error: invalidRefreshToken() };
    }
    if (Date.parse(stored.expiresAt) <= deps.clock().getTime()) return { error: invalidRefreshToken() };
    const subject = await findTokenSubject(tx, stored.userId);
    if (!subject) return { error: invalidRefreshToken() };
    await markRefreshTokenRotated(tx, stored.id);
    return { tokens: await issueTokens(deps, tx, subject, stored.familyId) };
  });
  // The revocation must commit, so the error is thrown only after the transaction ends.
  if ('error' in outcome) throw outcome.error;
  return outcome.tokens;
}

/**
 * Signs out: revokes the session (refresh-token family) the token belongs to, or with `all`
 * every session of its principal. An unknown, expired, rotated or revoked token changes nothing
 * beyond that and gets the same answer, so the route tells nothing about tokens. Access tokens
 * already issued stay valid until they expire (at most 15 minutes).
 */
export async function logOut(deps: AppDeps, token: string, all: boolean): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const stored = await findRefreshTokenForUpdate(tx, hashRefreshToken(token));
    if (!stored) return;
    if (all) await revokeRefreshTokensOfUser(tx, stored.userId);
    else await revokeRefreshTokenFamily(tx, stored.familyId);
  });
}
