import { jsonObjectOf, safeFetch, type OutboundOptions } from '../net/safe-fetch.ts';
import type { OAuthClient } from './client-registration.ts';
import { step, tokenRequestFailed } from './errors.ts';

export type TokenSet = {
  accessToken: string;
  tokenType: string;
  refreshToken?: string;
  /** ISO-8601; absent when the AS did not say (`expires_in` is optional, RFC 6749 §5.1). */
  expiresAt?: string;
  scope?: string;
};

/** RFC 6749 Appendix B: application/x-www-form-urlencoded, used for client_secret_basic too (§2.3.1). */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/**
 * Step 13: the authorization code grant (RFC 6749 §4.1.3) with the PKCE verifier (RFC 7636
 * §4.5), the same `resource` (RFC 8707 §2) and client authentication by the client's method.
 * The request carries secrets, so it follows no redirect.
 */
export async function exchangeAuthorizationCode(
  request: { tokenEndpoint: string; code: string; codeVerifier: string; redirectUri: string; resource: string; client: OAuthClient },
  now: Date,
  options: OutboundOptions,
): Promise<TokenSet> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: request.code,
    redirect_uri: request.redirectUri,
    code_verifier: request.codeVerifier,
    resource: request.resource,
  });
  return requestTokens(request.tokenEndpoint, form, request.client, now, options, 'requesting the tokens');
}

/** The authorization server no longer honours the refresh token (RFC 6749 §5.2 `invalid_grant`). */
export class InvalidGrantError extends Error {
  override name = 'InvalidGrantError';
}

/**
 * The refresh token grant (RFC 6749 §6) with the same `resource` (RFC 8707 §2; MCP spec,
 * "Token Theft": public clients get rotated refresh tokens). An answer without a new refresh
 * token keeps the old one (§6: the server MAY issue a new one). `invalid_grant` is an
 * InvalidGrantError: the user has to authorize again.
 */
export async function refreshAccessToken(
  request: { tokenEndpoint: string; refreshToken: string; resource: string; scope?: string; client: OAuthClient },
  now: Date,
  options: OutboundOptions,
): Promise<TokenSet> {
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: request.refreshToken, resource: request.resource });
  const tokens = await requestTokens(request.tokenEndpoint, form, request.client, now, options, 'refreshing the tokens');
  // RFC 6749 §5.1: an omitted scope is the scope granted before.
  const scope = tokens.scope ?? request.scope;
  return { ...tokens, refreshToken: tokens.refreshToken ?? request.refreshToken, ...(scope === undefined ? {} : { scope }) };
}

/** POSTs a token request with the client's authentication; follows no redirect (it carries secrets). */
async function requestTokens(
  tokenEndpoint: string,
  form: URLSearchParams,
  client: OAuthClient,
  now: Date,
  options: OutboundOptions,
  stepName: string,
): Promise<TokenSet> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.tokenEndpointAuthMethod === 'client_secret_basic' && client.clientSecret !== undefined) {
    const credentials = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
    if (client.tokenEndpointAuthMethod === 'client_secret_post' && client.clientSecret !== undefined) {
      form.set('client_secret', client.clientSecret);
    }
  }
  const response = await step(stepName, () =>
    safeFetch(tokenEndpoint, { method: 'POST', headers, body: form.toString() }, { ...options, maxRedirects: 0 }),
  );
  if (response.status !== 200) {
    const error = oauthErrorOf(response.body);
    // A refused code is the user's flow failing (502 below); a refused refresh token means authorizing again.
    if (response.status === 400 && error === ' (invalid_grant)' && form.get('grant_type') === 'refresh_token') {
      throw new InvalidGrantError('the authorization server refused the refresh token');
    }
    throw tokenRequestFailed(`the token endpoint answered ${response.status}${error}`);
  }
  const body = await step('reading the token response', async () => jsonObjectOf(response));
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    throw tokenRequestFailed('the token response has no access_token');
  }
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
    throw tokenRequestFailed('the token response is not a Bearer token');
  }
  const tokens: TokenSet = { accessToken: body.access_token, tokenType: 'Bearer' };
  if (typeof body.refresh_token === 'string' && body.refresh_token !== '') tokens.refreshToken = body.refresh_token;
  if (typeof body.expires_in === 'number' && Number.isFinite(body.expires_in) && body.expires_in > 0) {
    tokens.expiresAt = new Date(now.getTime() + Math.floor(body.expires_in) * 1000).toJSON();
  }
  if (typeof body.scope === 'string') tokens.scope = body.scope;
  return tokens;
}

/** The `error` code of an RFC 6749 §5.2 error response (a registered token, never a secret), if any. */
function oauthErrorOf(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown };
    return typeof parsed.error === 'string' && /^[\x20-\x7e]{1,64}$/.test(parsed.error) ? ` (${parsed.error})` : '';
  } catch {
    return '';
  }
}
