import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GoogleOAuthConfig } from '../../app/config.ts';

export type FakeProfile = { sub: string; email: string; email_verified: boolean; name: string };

/**
 * A minimal OAuth 2.0 / OpenID Connect provider on 127.0.0.1: a token endpoint that checks the
 * client credentials, the redirect URI and the PKCE verifier (RFC 7636 §4.6), and a UserInfo
 * endpoint. Codes are registered by the test with the challenge the service sent.
 */
export class FakeGoogle {
  readonly clientId = 'fake-client-id';
  readonly clientSecret = 'fake-client-secret';
  private readonly codes = new Map<string, { challenge: string; redirectUri: string; profile: FakeProfile }>();
  private readonly tokens = new Map<string, FakeProfile>();
  private server: Server | undefined;
  private base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const send = (status: number, body: object) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        if (req.method === 'POST' && req.url === '/token') {
          const form = new URLSearchParams(raw);
          const grant = this.codes.get(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          const ok =
            grant &&
            form.get('grant_type') === 'authorization_code' &&
            form.get('client_id') === this.clientId &&
            form.get('client_secret') === this.clientSecret &&
            form.get('redirect_uri') === grant.redirectUri &&
            createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
          if (!ok) return send(400, { error: 'invalid_grant' });
          this.codes.delete(form.get('code')!);
          const accessToken = `at-${Math.random().toString(36).slice(2)}`;
          this.tokens.set(accessToken, grant.profile);
          return send(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600 });
        }
        if (req.method === 'GET' && req.url === '/userinfo') {
          const profile = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
          return profile ? send(200, profile) : send(401, { error: 'invalid_token' });
        }
        send(404, { error: 'not_found' });
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  get config(): GoogleOAuthConfig {
    return {
      clientId: this.clientId,
      clientSecret: this.clientSecret,
      authorizationUrl: `${this.base}/authorize`,
      tokenUrl: `${this.base}/token`,
      userinfoUrl: `${this.base}/userinfo`,
    };
  }

  /** What the user's consent at Google would do: a code for this authorization URL and profile. */
  grant(authorizationUrl: string, profile: FakeProfile): { code: string; state: string } {
    const url = new URL(authorizationUrl);
    const code = `code-${Math.random().toString(36).slice(2)}`;
    this.codes.set(code, {
      challenge: url.searchParams.get('code_challenge')!,
      redirectUri: url.searchParams.get('redirect_uri')!,
      profile,
    });
    return { code, state: url.searchParams.get('state')! };
  }
}
