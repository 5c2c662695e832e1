import { findPrincipalForVerification, markEmailVerified, updatePasswordHash } from '../../sql/principals.ts';
import { revokeRefreshTokensOfUser } from '../../sql/refresh-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import type { PrincipalType } from '../core/route.ts';
import { hashPassword } from './passwords.ts';
import { consumeCode, noSuchCode, sendCode } from './verification-codes.ts';

/**
 * Sends a password-reset code to the principal of `type` with `email`, if there is one. The
 * caller answers the same 202 either way, so the route does not tell who has an account.
 */
export async function requestPasswordReset(deps: AppDeps, type: PrincipalType, email: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const principal = await findPrincipalForVerification(tx, type, email);
    if (!principal) return;
    await sendCode(deps, tx, { id: principal.id, email: email.toLowerCase() }, 'password_reset');
  });
}

/**
 * Sets a new password with a reset code (single use, 15 minutes, 5 wrong attempts), revokes
 * every refresh token of the principal, and marks the email verified: the code proved the
 * mailbox. An unknown email answers like a wrong code.
 */
export async function resetPassword(
  deps: AppDeps,
  type: PrincipalType,
  body: { email: string; code: string; newPassword: string },
): Promise<void> {
  const outcome = await deps.db.transaction(async (tx) => {
    const principal = await findPrincipalForVerification(tx, type, body.email);
    if (!principal) return noSuchCode();
    const error = await consumeCode(deps, tx, principal.id, 'password_reset', body.code);
    if (error) return error;
    await updatePasswordHash(tx, principal.id, await hashPassword(body.newPassword));
    await revokeRefreshTokensOfUser(tx, principal.id);
    if (!principal.emailVerified) await markEmailVerified(tx, principal.id);
    deps.logger.info({ userId: principal.id, type }, 'password reset; every refresh token revoked');
    return undefined;
  });
  // A wrong guess must be counted, so the error is thrown only after the transaction commits.
  if (outcome) throw outcome;
}
