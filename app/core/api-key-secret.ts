import { createHmac, randomBytes } from 'node:crypto';
import { deriveKey } from './derived-keys.ts';

/** Every key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = 'agk_';
/** 32 random bytes: 256 bits of entropy, base64url (43 characters) after the prefix. */
const RANDOM_BYTES = 32;
/** Characters of the key kept in clear to recognise it in a list: `agk_` and 8 more. */
const SHOWN_LENGTH = API_KEY_PREFIX.length + 8;
/** The whole shape of a key; anything else is refused before any hashing or lookup. */
const KEY_SHAPE = /^agk_[A-Za-z0-9_-]{43}$/;

export type NewApiKeySecret = { key: string; prefix: string; hash: Buffer };

/** A fresh key, its recognisable prefix and the hash that is stored instead of it. */
export function newApiKeySecret(serverSecret: string): NewApiKeySecret {
  const key = API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
  return { key, prefix: key.slice(0, SHOWN_LENGTH), hash: apiKeyHash(serverSecret, key) };
}

/**
 * HMAC-SHA256 of the whole key under a key derived from the server secret (ADR 0140): a leaked
 * table without the secret gives nothing to brute-force, and with it a 256-bit random key is
 * still out of reach, so a slow KDF would add latency and no safety.
 */
export function apiKeyHash(serverSecret: string, key: string): Buffer {
  return createHmac('sha256', hashKeyOf(serverSecret)).update(key, 'utf8').digest();
}

const hashKeys = new Map<string, Buffer>();
function hashKeyOf(serverSecret: string): Buffer {
  let hashKey = hashKeys.get(serverSecret);
  if (hashKey === undefined) {
    hashKey = deriveKey(serverSecret, 'api-key-v1');
    hashKeys.set(serverSecret, hashKey);
  }
  return hashKey;
}

/** Is this bearer token shaped like one of our keys? Others are never hashed nor looked up. */
export const isApiKeyShaped = (token: string) => KEY_SHAPE.test(token);
