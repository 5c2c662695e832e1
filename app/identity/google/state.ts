import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../core/derived-keys.ts';
import type { PrincipalType } from '../../core/route.ts';

/** How long a sign-in started at the authorize route may take to come back to the callback. */
export const STATE_TTL_SECONDS = 10 * 60;

export type StatePayload = { type: PrincipalType; organizationId?: string; nonce: string; expiresAt: number };

const stateKey = (secret: string) => deriveKey(secret, 'google-oauth-state-v1');
const verifierKey = (secret: string) => deriveKey(secret, 'google-oauth-pkce-v1');
const mac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64url');

/**
 * A self-contained, signed `state` (RFC 6749 §10.12): payload.HMAC. It binds the callback to
 * an authorization this service started, for the same principal type, within 10 minutes,
 * without storing anything.
 */
export function signState(secret: string, payload: Omit<StatePayload, 'nonce' | 'expiresAt'>, now: Date): string {
  const full: StatePayload = {
    ...payload,
    nonce: randomBytes(16).toString('base64url'),
    expiresAt: Math.floor(now.getTime() / 1000) + STATE_TTL_SECONDS,
  };
  const encoded = Buffer.from(JSON.stringify(full)).toString('base64url');
  return `${encoded}.${mac(stateKey(secret), encoded)}`;
}

export function verifyState(secret: string, state: string, type: PrincipalType, now: Date): StatePayload | undefined {
  const [encoded, signature, extra] = state.split('.');
  if (!encoded || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(stateKey(secret), encoded));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as StatePayload;
  } catch {
    return undefined;
  }
  if (payload.type !== type || payload.expiresAt <= Math.floor(now.getTime() / 1000)) return undefined;
  return payload;
}

/**
 * PKCE (RFC 7636) without server-side storage: the code verifier is an HMAC of the signed
 * state, so only this service can recompute it at the callback. 43 base64url characters.
 */
export const codeVerifierFor = (secret: string, state: string) => mac(verifierKey(secret), state);

export const codeChallengeFor = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
