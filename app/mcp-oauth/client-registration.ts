import type { CommonQueryMethods } from 'slonik';
import { findRegisteredClient, insertRegisteredClient } from '../../sql/mcp-oauth-clients.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { jsonObjectOf, safeFetch, type OutboundOptions } from '../net/safe-fetch.ts';
import { clientMetadataDocumentUrl } from './client-metadata.ts';
import type { AuthorizationServerMetadata } from './discovery.ts';
import { clientRegistrationFailed, clientRegistrationUnavailable, step } from './errors.ts';
import { redirectUriOf } from './outbound.ts';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** Our client identity at one authorization server (bound to its issuer, MCP 2026-07-28). */
export type OAuthClient = { clientId: string; clientSecret?: string; tokenEndpointAuthMethod: TokenEndpointAuthMethod };

export const CLIENT_NAME = 'Agents backend';

/**
 * Step 6, in the MCP spec's order ("Client Registration Approaches"): a client pre-registered
 * for the issuer in `MCP_OAUTH_CLIENTS`; else, where the AS advertises
 * `client_id_metadata_document_supported`, the URL of the Client ID Metadata Document we serve
 * (client-metadata.ts; a public client); else the client we registered with it before; else a
 * new registration (RFC 7591) where the AS has a `registration_endpoint`; else a 502 naming the
 * missing configuration.
 */
export async function clientFor(
  deps: AppDeps,
  metadata: AuthorizationServerMetadata,
  redirectUri: string,
  options: OutboundOptions,
): Promise<OAuthClient> {
  const configured = deps.config.mcpOAuth.clients[metadata.issuer];
  if (configured) {
    return {
      clientId: configured.clientId,
      ...(configured.clientSecret === undefined ? {} : { clientSecret: configured.clientSecret }),
      tokenEndpointAuthMethod: configured.clientSecret === undefined ? 'none' : (secretMethod(metadata) ?? 'client_secret_basic'),
    };
  }
  if (metadata.clientIdMetadataDocumentSupported) {
    return { clientId: clientMetadataDocumentUrl(deps.config), tokenEndpointAuthMethod: 'none' };
  }
  const context = clientContext(metadata.issuer, redirectUri);
  const stored = await findRegisteredClient(deps.db, metadata.issuer, redirectUri);
  if (stored) return openJson<OAuthClient>(deps.config.credentialsKeyring, { keyId: stored.keyId, ciphertext: stored.sealed }, context);
  if (!metadata.registrationEndpoint) {
    throw clientRegistrationUnavailable(
      'the authorization server offers no dynamic client registration; configure a client for its issuer in MCP_OAUTH_CLIENTS',
    );
  }
  const client = await registerClient(metadata, metadata.registrationEndpoint, redirectUri, options);
  const sealed = sealJson(deps.config.credentialsKeyring, client, context);
  const kept = await insertRegisteredClient(deps.db, {
    issuer: metadata.issuer,
    redirectUri,
    keyId: sealed.keyId,
    sealed: sealed.ciphertext,
  });
  if (kept) return client;
  // Another initiate registered at the same moment: use the one that was stored.
  const winner = await findRegisteredClient(deps.db, metadata.issuer, redirectUri);
  return winner
    ? openJson<OAuthClient>(deps.config.credentialsKeyring, { keyId: winner.keyId, ciphertext: winner.sealed }, context)
    : client;
}

/**
 * The client that obtained a server's tokens, for refreshing them: the configured client of the
 * issuer, our metadata document URL, or the client registered with the issuer (all looked up by
 * the stored `client_id`). A configured client with a secret uses client_secret_basic (RFC 8414
 * §2's default); an unknown client id is treated as a public client.
 */
export async function clientForRefresh(deps: AppDeps, db: CommonQueryMethods, issuer: string, clientId: string): Promise<OAuthClient> {
  const configured = deps.config.mcpOAuth.clients[issuer];
  if (configured?.clientId === clientId) {
    return configured.clientSecret === undefined
      ? { clientId, tokenEndpointAuthMethod: 'none' }
      : { clientId, clientSecret: configured.clientSecret, tokenEndpointAuthMethod: 'client_secret_basic' };
  }
  if (clientId === clientMetadataDocumentUrl(deps.config)) return { clientId, tokenEndpointAuthMethod: 'none' };
  const redirectUri = redirectUriOf(deps.config);
  const stored = await findRegisteredClient(db, issuer, redirectUri);
  if (stored) {
    const client = openJson<OAuthClient>(
      deps.config.credentialsKeyring,
      { keyId: stored.keyId, ciphertext: stored.sealed },
      clientContext(issuer, redirectUri),
    );
    if (client.clientId === clientId) return client;
  }
  return { clientId, tokenEndpointAuthMethod: 'none' };
}

export const clientContext = (issuer: string, redirectUri: string) => `mcp-oauth-client:${issuer} ${redirectUri}`;

/** A confidential client's method: client_secret_basic (RFC 8414 §2's default) unless only _post is offered. */
function secretMethod(metadata: AuthorizationServerMetadata): TokenEndpointAuthMethod | undefined {
  const supported = metadata.tokenEndpointAuthMethodsSupported;
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return undefined;
}

/** RFC 7591 §2-3 with the fields of MCP step 6.3, `application_type: "web"` (MCP 2026-07-28). */
async function registerClient(
  metadata: AuthorizationServerMetadata,
  endpoint: string,
  redirectUri: string,
  options: OutboundOptions,
): Promise<OAuthClient> {
  const requested = secretMethod(metadata) ?? 'none';
  const response = await step('registering the client', () =>
    safeFetch(
      endpoint,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: requested,
          client_name: CLIENT_NAME,
          application_type: 'web',
        }),
      },
      { ...options, maxRedirects: 0 },
    ),
  );
  if (response.status !== 201 && response.status !== 200) {
    throw clientRegistrationFailed(`the registration endpoint answered ${response.status}`);
  }
  const body = await step('reading the client registration', async () => jsonObjectOf(response));
  if (typeof body.client_id !== 'string' || body.client_id === '') {
    throw clientRegistrationFailed('the registration response has no client_id');
  }
  const secret = typeof body.client_secret === 'string' && body.client_secret !== '' ? body.client_secret : undefined;
  const answered = body.token_endpoint_auth_method;
  const method: TokenEndpointAuthMethod =
    answered === 'none' || answered === 'client_secret_basic' || answered === 'client_secret_post'
      ? answered
      : secret === undefined
        ? 'none'
        : requested === 'none'
          ? 'client_secret_basic'
          : requested;
  if (method !== 'none' && secret === undefined) {
    throw clientRegistrationFailed('the registration response has no client_secret for its auth method');
  }
  return { clientId: body.client_id, ...(secret === undefined ? {} : { clientSecret: secret }), tokenEndpointAuthMethod: method };
}
