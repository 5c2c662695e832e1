import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from '../core/derived-keys.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const keyFor = (secret: string) => deriveKey(secret, 'notification-outbox-v1');

/** AES-256-GCM: iv (12 bytes) || tag (16 bytes) || ciphertext. */
export function seal(secret: string, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function unseal(secret: string, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secret), sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
