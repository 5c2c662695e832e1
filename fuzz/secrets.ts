/** Spellings of a secret that a log or body might hold: text, byte list, hex, base64. */
export function spellings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    [...bytes].join(','),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
  ];
}

/** Secrets the fuzzer knows: the demo password, tokens issued to it, MCP credentials it stored. */
export class SecretRegistry {
  readonly #secrets = new Map<string, string>();

  add(secret: string, label: string): void {
    if (secret.length < 8 || this.#secrets.has(secret)) return;
    this.#secrets.set(secret, label);
  }

  /** Tokens in an answer (`accessToken`, `refreshToken` fields). */
  harvestIssued(body: unknown): void {
    if (body === null || typeof body !== 'object') return;
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (typeof value === 'string' && /^(accessToken|refreshToken|idToken)$/.test(key)) this.add(value, key);
    }
  }

  /** Credential values sent in a request body that the server accepted (`credentials: { key: value }`). */
  harvestStored(body: unknown): void {
    const credentials = (body as { credentials?: unknown } | undefined)?.credentials;
    if (credentials && typeof credentials === 'object') {
      for (const value of Object.values(credentials as Record<string, unknown>))
        if (typeof value === 'string') this.add(value, 'MCP credential');
    }
  }

  /** Labels of the secrets that `text` holds in any spelling. */
  foundIn(text: string): string[] {
    const found: string[] = [];
    for (const [secret, label] of this.#secrets) {
      if (spellings(secret).some((spelled) => text.includes(spelled))) found.push(label);
    }
    return found;
  }
}

/**
 * The answer's text without the tokens it issues (`accessToken`, `refreshToken`, an end user's
 * `sessionToken` and `visitorToken`): those are
 * its to carry. Two sign-ins in the same second issue the same access token, so a token is
 * judged by where it appears, not by which answer issued it first.
 */
export function withoutIssuedTokens(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
    const {
      accessToken: _access,
      refreshToken: _refresh,
      sessionToken: _session,
      visitorToken: _visitor,
      ...rest
    } = body as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return text;
  }
}
