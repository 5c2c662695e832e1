import type { GoogleOAuthConfig } from '../../config.ts';
import { googleSignInFailed, googleUnavailable } from '../errors.ts';

/** Time allowed for each call to the provider. */
const PROVIDER_TIMEOUT_MS = 10_000;

export type GoogleProfile = { subject: string; email: string; emailVerified: boolean; name: string };

export function authorizationUrl(
  config: GoogleOAuthConfig,
  request: { redirectUri: string; state: string; codeChallenge: string },
): string {
  const url = new URL(config.authorizationUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: request.redirectUri,
    scope: 'openid email profile',
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

async function call(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let response: globalThis.Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch {
    throw googleUnavailable();
  }
  if (response.status >= 500) throw googleUnavailable();
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!response.ok || !body || typeof body !== 'object') throw googleSignInFailed();
  return body;
}

/**
 * The authorization-code exchange (RFC 6749 §4.1.3, client_secret_post, with the PKCE
 * verifier), then the OpenID Connect UserInfo request (OIDC Core §5.3) with the access token
 * received directly from the token endpoint over TLS.
 */
export async function exchangeCodeForProfile(
  config: GoogleOAuthConfig,
  request: { code: string; redirectUri: string; codeVerifier: string },
): Promise<GoogleProfile> {
  const tokens = await call(config.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: request.code,
      redirect_uri: request.redirectUri,
      client_id: config.clientId,
      client_secret: config.clientSecret,
      code_verifier: request.codeVerifier,
    }).toString(),
  });
  if (typeof tokens.access_token !== 'string') throw googleSignInFailed();
  const info = await call(config.userinfoUrl, {
    headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' },
  });
  if (typeof info.sub !== 'string' || !info.sub || typeof info.email !== 'string' || !info.email.includes('@')) {
    throw googleSignInFailed();
  }
  return {
    subject: info.sub,
    email: info.email.toLowerCase(),
    emailVerified: info.email_verified === true || info.email_verified === 'true',
    name: typeof info.name === 'string' ? info.name.slice(0, 200) : '',
  };
}
