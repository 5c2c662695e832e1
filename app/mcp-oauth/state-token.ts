import { createHash, randomBytes } from 'node:crypto';

/**
 * The `state` parameter: 32 CSPRNG bytes (256 bits, above the 128 the MCP spec asks for) in
 * base64url. Only its SHA-256 is stored, so a database reader cannot complete a flow. The
 * browser key and the landing's hand-off are made and stored the same way.
 */
export function createState(): string {
  return randomBytes(32).toString('base64url');
}

export function hashState(state: string): Buffer {
  return createHash('sha256').update(state, 'utf8').digest();
}

/** Pending authorizations expire 10 minutes after initiate. */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;
