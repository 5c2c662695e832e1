import { createHash, randomBytes } from 'node:crypto';
import { pkceUnsupported } from './errors.ts';
import type { AuthorizationServerMetadata } from './discovery.ts';

/**
 * PKCE (RFC 7636). The verifier is 32 CSPRNG bytes in base64url: 43 characters of the
 * unreserved set (§4.1); the challenge is BASE64URL(SHA-256(ASCII(verifier))) (§4.2, S256).
 */
export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * The MCP spec ("Authorization Code Protection") requires the client to confirm PKCE support
 * from the metadata and refuse to proceed without it; only S256 is used (plain is never).
 */
export function assertS256Supported(metadata: AuthorizationServerMetadata): void {
  if (!metadata.codeChallengeMethodsSupported?.includes('S256')) {
    throw pkceUnsupported('the authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)');
  }
}
