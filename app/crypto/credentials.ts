import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Sealed } from '../../sql/sealed.ts';

/**
 * Envelope encryption of credentials at rest: AES-256-GCM (NIST SP 800-38D) with a random
 * 96-bit IV per message and a caller-given context bound as additional authenticated data,
 * so a ciphertext copied to another agency's or server's row does not open there.
 *
 * Stored form: `keyId` beside the ciphertext `iv (12) || tag (16) || data`. The key id lets keys
 * rotate: new values are sealed with the current key, old ones still open with theirs.
 */
export type Keyring = { current: { id: string; key: Buffer }; all: Map<string, Buffer> };

export type { Sealed };

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;

export class KeyringError extends Error {
  override name = 'KeyringError';
}

/**
 * Parses `CREDENTIALS_KEY`: comma-separated `<keyId>:<base64 of 32 bytes>`; the first entry is
 * the current key, the others only open older values (rotation).
 */
export function parseKeyring(value: string): Keyring {
  const fail = (why: string): never => {
    throw new KeyringError(`Invalid environment variable CREDENTIALS_KEY: ${why}`);
  };
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) fail('expected <keyId>:<base64 of 32 bytes>[,<keyId>:<base64>...]');
  const all = new Map<string, Buffer>();
  let current: Keyring['current'] | undefined;
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    if (colon <= 0) fail('each key must be written <keyId>:<base64 of 32 bytes>');
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) fail(`key id "${id.slice(0, 40)}" must be 1-32 letters, digits, '.', '_' or '-'`);
    if (all.has(id)) fail(`key id "${id}" appears twice`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) fail(`key "${id}" is not base64`);
    const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
    if (key.length !== KEY_BYTES) fail(`key "${id}" must decode to ${KEY_BYTES} bytes, got ${key.length}`);
    all.set(id, key);
    current ??= { id, key };
  }
  return { current: current!, all };
}

/** A new random key in the `CREDENTIALS_KEY` entry form, `k1:<base64>`. */
export function generateKeyEntry(id = 'k1'): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** Encrypts `value` as JSON with the current key, binding `context` (e.g. `agency:<id>/server:<id>`). */
export function sealJson(keyring: Keyring, value: unknown, context: string): Sealed {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { keyId: keyring.current.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), data]) };
}

export class CredentialsUnreadableError extends Error {
  override name = 'CredentialsUnreadableError';
}

/**
 * Decrypts what `sealJson` produced. Fails closed: an unknown key id, a modified ciphertext or
 * a different context throws `CredentialsUnreadableError` (the message names no secret).
 */
export function openJson<T = unknown>(keyring: Keyring, sealed: Sealed, context: string): T {
  const key = keyring.all.get(sealed.keyId);
  if (!key) throw new CredentialsUnreadableError(`unknown credentials key id "${sealed.keyId}"`);
  const blob = sealed.ciphertext;
  if (blob.length < IV_BYTES + TAG_BYTES) throw new CredentialsUnreadableError('credentials ciphertext is truncated');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plain = Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  } catch {
    throw new CredentialsUnreadableError('credentials failed authentication (tampered, wrong key or wrong context)');
  }
}
