import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { findPrincipalForVerification, markEmailVerified } from '../../sql/principals.ts';
import {
  findCurrentVerificationCode,
  insertVerificationCode,
  markCodeConsumed,
  recordFailedAttempt,
} from '../../sql/verification-codes.ts';
import { deriveKey } from '../core/derived-keys.ts';
import type { AppDeps } from '../core/deps.ts';
import { CodedError } from '../core/errors.ts';
import type { PrincipalType } from '../core/route.ts';
import { transportFor } from '../notifications/transport.ts';

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

/** Issues a new email-verification code (superseding older ones) and sends it, inside `db`'s transaction. */
export async function sendEmailVerificationCode(
  deps: AppDeps,
  db: CommonQueryMethods,
  principal: { id: string; email: string },
): Promise<void> {
  const code = randomInt(0, 10 ** CODE_DIGITS).toString().padStart(CODE_DIGITS, '0');
  await insertVerificationCode(db, {
    id: uuidv7(),
    userId: principal.id,
    purpose: 'email_verification',
    hash: hashCode(deps.config.jwtSecret, principal.id, code),
    expiresAt: new Date(deps.clock().getTime() + CODE_TTL_MS),
    maxAttempts: MAX_CODE_ATTEMPTS,
  });
  await transportFor(deps).send(db, {
    channel: 'email',
    to: principal.email,
    template: 'email-verification',
    subject: 'Your verification code',
    text: `Your verification code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes.`,
  });
}

const invalidCode = (attemptsRemaining?: number) =>
  new CodedError(
    400,
    'IDENTITY.VERIFICATION_CODE_INVALID',
    { en: 'The verification code is not valid.', es: 'El código de verificación no es válido.' },
    attemptsRemaining === undefined ? undefined : { attemptsRemaining },
  );
const expiredCode = () =>
  new CodedError(400, 'IDENTITY.VERIFICATION_CODE_EXPIRED', {
    en: 'The verification code has expired. Sign in to receive a new one.',
    es: 'El código de verificación ha caducado. Inicia sesión para recibir uno nuevo.',
  });
const exhaustedCode = () =>
  new CodedError(400, 'IDENTITY.VERIFICATION_CODE_EXHAUSTED', {
    en: 'Too many wrong attempts for this code. Sign in to receive a new one.',
    es: 'Demasiados intentos fallidos con este código. Inicia sesión para recibir uno nuevo.',
  });

/**
 * Checks a code for the principal of `type` with `email` and marks the email verified. An
 * unknown email, an already verified one and a principal without a live code all answer the
 * same "invalid" error. A wrong guess is counted even though the request fails.
 */
export async function verifyEmail(deps: AppDeps, type: PrincipalType, email: string, code: string): Promise<void> {
  const outcome = await deps.db.transaction(async (tx) => {
    const principal = await findPrincipalForVerification(tx, type, email);
    if (!principal || principal.emailVerified) return invalidCode();
    const stored = await findCurrentVerificationCode(tx, principal.id, 'email_verification');
    if (!stored) return invalidCode();
    if (Date.parse(stored.expiresAt) <= deps.clock().getTime()) return expiredCode();
    if (stored.attempts >= stored.maxAttempts) return exhaustedCode();
    const presented = hashCode(deps.config.jwtSecret, principal.id, code);
    if (!timingSafeEqual(presented, stored.hash)) {
      await recordFailedAttempt(tx, stored.id);
      return invalidCode(stored.maxAttempts - stored.attempts - 1);
    }
    await markCodeConsumed(tx, stored.id);
    await markEmailVerified(tx, principal.id);
    return undefined;
  });
  // The failed attempt must be committed, so the error is thrown after the transaction.
  if (outcome) throw outcome;
}
