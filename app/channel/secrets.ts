import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * The channel's opaque values: the publishable key (`agp_`), the secret (`ags_`) and an anonymous
 * visitor's token (`agv_`), each made of base62 characters drawn without bias from a CSPRNG; and
 * the HMAC a business's server sends to prove who its user is.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` base62 characters: bytes at or above 248 (4 × 62) are dropped, so each character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A channel's publishable key: public, it goes into web pages. */
export const newPublishableKey = () => `agp_${randomBase62(32)}`;
/** A channel's secret: shown once, kept sealed. */
export const newChannelSecret = () => `ags_${randomBase62(40)}`;
/** An anonymous visitor's token: 238 bits, kept only as its SHA-256. */
export const newVisitorToken = () => `agv_${randomBase62(40)}`;

/** What the database keeps of a visitor token. */
export const visitorTokenHash = (token: string) => createHash('sha256').update(token).digest();

/** The `userHash` a business's server computes: lowercase hex HMAC-SHA256(secret, user id). */
export const userHashOf = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');

/** Whether `hash` is the user's HMAC, compared in constant time (a hash of any other length is simply wrong). */
export function isUserHash(secret: string, userId: string, hash: string): boolean {
  const expected = Buffer.from(userHashOf(secret, userId), 'utf8');
  const given = Buffer.from(hash, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
