import { createHash, randomBytes } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { insertSignInHandoff, takeSignInHandoff } from '../../../sql/sign-in-handoffs.ts';
import { findTokenSubject } from '../../../sql/users.ts';
import type { AppDeps } from '../../core/deps.ts';
import { issueTokens } from '../sessions.ts';
import type { TokenPair } from '../tokens.ts';
import { googleHandoffInvalid } from '../errors.ts';

/** A hand-off code must be redeemed within a minute of the landing. */
export const HANDOFF_TTL_MS = 60 * 1000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Records a one-time code (256 bits, 60 seconds) that the front-end trades for a token pair
 * together with the `state` it started the sign-in with (ADR 0082). Tokens never travel in a
 * URL, and a callback URL made by someone else is useless in a browser that did not start
 * that sign-in (login CSRF): that browser does not hold its state.
 */
export async function createHandoff(deps: AppDeps, db: CommonQueryMethods, userId: string, state: string): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const now = deps.clock();
  await insertSignInHandoff(db, {
    codeHash: sha256(code),
    stateHash: sha256(state),
    userId,
    expiresAt: new Date(now.getTime() + HANDOFF_TTL_MS),
    now,
  });
  return code;
}

/** Redeems a hand-off for a new session. Unknown, used, expired or mismatched: 401. */
export async function redeemHandoff(deps: AppDeps, code: string, state: string): Promise<TokenPair> {
  const outcome = await deps.db.transaction(async (tx) => {
    const taken = await takeSignInHandoff(tx, sha256(code), sha256(state), deps.clock());
    if (!taken || taken.expired) return undefined;
    const subject = await findTokenSubject(tx, taken.userId);
    return subject ? issueTokens(deps, tx, subject, uuidv7()) : undefined;
  });
  // An expired hand-off is consumed (the delete commits) and then refused.
  if (!outcome) throw googleHandoffInvalid();
  return outcome;
}
