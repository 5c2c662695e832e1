import type { CommonQueryMethods } from 'slonik';
import { findPrincipalForVerification, markEmailVerified, updatePasswordHash } from '../../sql/principals.ts';
import { revokeRefreshTokensOfUser } from '../../sql/refresh-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import type { PrincipalType } from '../core/route.ts';
import { transportFor } from '../notifications/transport.ts';
import { hashPassword } from './passwords.ts';
import { consumeCode, noSuchCode, sendCode } from './verification-codes.ts';

/** The outbox job of a forgot-password request (ADR 0114); its payload is the principal type. */
export const PASSWORD_RESET_JOB = 'job:password-reset';

/**
 * Queues a password-reset request for `email` in the outbox, whether or not an account has it:
 * the request path does the same work (one sealed row, one commit) for every email, so neither
 * its answer nor its time tells who has an account (issue 22). The outbox worker runs the job.
 */
export async function requestPasswordReset(deps: AppDeps, type: PrincipalType, email: string): Promise<void> {
  await transportFor(deps).send(deps.db, { channel: 'email', to: email.toLowerCase(), template: PASSWORD_RESET_JOB, text: type });
}

/**
 * The job, run by the outbox worker inside its transaction: sends a reset code to the principal
 * of that type with that email, if there is one; otherwise does nothing.
 */
export const passwordResetJob =
  (deps: AppDeps) =>
  async (tx: CommonQueryMethods, job: { recipient: string; payload: string }): Promise<void> => {
    if (job.payload !== 'user' && job.payload !== 'client') throw new Error('a password-reset job names no principal type');
    const principal = await findPrincipalForVerification(tx, job.payload, job.recipient);
    if (!principal) return;
    await sendCode(deps, tx, { id: principal.id, email: job.recipient }, 'password_reset');
  };

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
