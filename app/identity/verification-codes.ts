import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { findPrincipalForVerification, markEmailVerified } from '../../sql/principals.ts';
import {
  findCurrentVerificationCode,
  insertVerificationCode,
  markCodeConsumed,
  recordFailedAttempt,
  type Purpose,
} from '../../sql/verification-codes.ts';
import { deriveKey } from '../core/derived-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import type { CodedError } from '../core/errors.ts';
import type { PrincipalType } from '../core/route.ts';
import { transportFor } from '../notifications/transport.ts';
import { exhaustedCode, expiredCode, invalidCode } from './errors.ts';

/** A code works for 15 minutes and for at most 5 wrong guesses (then a new one is needed). */
export const CODE_TTL_MS = 15 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
const CODE_DIGITS = 6;

/**
 * Codes are short, so a plain hash could be reversed by trying all 10^6 values: they are
 * stored as an HMAC under a key derived from the service secret, bound to the principal.
 */
function hashCode(secret: string, userId: string, code: string): Buffer {
  return createHmac('sha256', deriveKey(secret, 'verification-code-v1')).update(`${userId}:${code}`).digest();
}

/** The wording of each code's email; the code is the only run of six digits in the text. */
const MESSAGES: Record<Purpose, { template: string; subject: string; text: (code: string) => string }> = {
  email_verification: {
    template: 'email-verification',
    subject: 'Your verification code',
    text: (code) => `Your verification code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes.`,
  },
  password_reset: {
    template: 'password-reset',
    subject: 'Your password reset code',
    text: (code) =>
      `Your password reset code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes. ` +
      'If you did not ask to reset your password, ignore this message: your password stays as it is.',
  },
};

/** Issues a new code of `purpose` (superseding older ones) and sends it, inside `db`'s transaction. */
export async function sendCode(
  deps: AppDeps,
  db: CommonQueryMethods,
  principal: { id: string; email: string },
  purpose: Purpose,
): Promise<void> {
  const code = randomInt(0, 10 ** CODE_DIGITS)
    .toString()
    .padStart(CODE_DIGITS, '0');
  await insertVerificationCode(db, {
    id: uuidv7(),
    userId: principal.id,
    purpose,
    hash: hashCode(deps.config.jwtSecret, principal.id, code),
    expiresAt: new Date(deps.clock().getTime() + CODE_TTL_MS),
    maxAttempts: MAX_CODE_ATTEMPTS,
  });
  const message = MESSAGES[purpose];
  await transportFor(deps).send(db, {
    channel: 'email',
    to: principal.email,
    template: message.template,
    subject: message.subject,
    text: message.text(code),
  });
}

/** Issues a new email-verification code (superseding older ones) and sends it, inside `db`'s transaction. */
export const sendEmailVerificationCode = (deps: AppDeps, db: CommonQueryMethods, principal: { id: string; email: string }) =>
  sendCode(deps, db, principal, 'email_verification');

/**
 * Checks `code` against the principal's current code of `purpose`, inside `tx` (the code row
 * is locked). Answers the error to throw once the transaction has committed (a wrong guess is
 * counted even though the request fails), or undefined after consuming the code.
 * The comparison is constant-time over two HMACs of equal length.
 *
 * A wrong code is always plain `invalid`, as for an unknown email (no attempts left, expiry or
 * exhaustion are not revealed to a guesser: that would tell real accounts from unknown ones).
 * Only the right code learns that it expired or was exhausted by wrong guesses.
 */
export async function consumeCode(
  deps: AppDeps,
  tx: CommonQueryMethods,
  principalId: string,
  purpose: Purpose,
  code: string,
): Promise<CodedError | undefined> {
  const stored = await findCurrentVerificationCode(tx, principalId, purpose);
  if (!stored) return invalidCode();
  const presented = hashCode(deps.config.jwtSecret, principalId, code);
  if (!timingSafeEqual(presented, stored.hash)) {
    if (stored.attempts < stored.maxAttempts) await recordFailedAttempt(tx, stored.id);
    return invalidCode();
  }
  if (Date.parse(stored.expiresAt) <= deps.clock().getTime()) return expiredCode();
  if (stored.attempts >= stored.maxAttempts) return exhaustedCode();
  await markCodeConsumed(tx, stored.id);
  return undefined;
}

/** The answer for an unknown email or a principal without a live code: the same as a wrong code. */
export const noSuchCode = () => invalidCode();

/**
 * Checks a code for the principal of `type` with `email` and marks the email verified. An
 * unknown email, an already verified one and a principal without a live code all answer the
 * same "invalid" error. A wrong guess is counted even though the request fails.
 */
export async function verifyEmail(deps: AppDeps, type: PrincipalType, email: string, code: string): Promise<void> {
  const outcome = await deps.db.transaction(async (tx) => {
    const principal = await findPrincipalForVerification(tx, type, email);
    if (!principal || principal.emailVerified) return invalidCode();
    const error = await consumeCode(deps, tx, principal.id, 'email_verification', code);
    if (error) return error;
    await markEmailVerified(tx, principal.id);
    return undefined;
  });
  // The failed attempt must be committed, so the error is thrown after the transaction.
  if (outcome) throw outcome;
}
