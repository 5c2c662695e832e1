import { hkdfSync } from 'node:crypto';

/**
 * A 256-bit key for one purpose, derived from a service secret with HKDF-SHA256 (RFC 5869).
 * Distinct labels give independent keys, so one secret can serve several purposes without
 * a key being usable for another purpose.
 */
export function deriveKey(secret: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'agents-backend', label, 32));
}
