/**
 * An encrypted value as the database stores it: the id of the key that sealed it beside the
 * AES-256-GCM ciphertext `iv || tag || data` (app/crypto/credentials.ts seals and opens it).
 * Declared here, below `app/`, because `sql/` may not import from `app/`.
 */
export type Sealed = { keyId: string; ciphertext: Buffer };
