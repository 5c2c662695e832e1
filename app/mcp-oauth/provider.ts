import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CommonQueryMethods } from 'slonik';
import { findRegisteredClient, insertRegisteredClient } from '../../sql/mcp-oauth-clients.ts';
import type { Config } from '../config.ts';
import type { AppDeps } from '../core/deps.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { outboundOptions, safeFetch } from '../net/guarded-fetch.ts';
import { clientRegistrationUnavailable, tokenRequestFailed } from './errors.ts';

/** A client as the SDK takes it, bound to the issuer it belongs to. */
export type Client = OAuthClientInformationMixed & { token_endpoint_auth_method?: string; issuer: string };

/** Tokens as stored, sealed (ISO `expiresAt`, absent when the AS did not say: RFC 6749 §5.1). */
export type TokenSet = { accessToken: string; tokenType: string; refreshToken?: string; expiresAt?: string; scope?: string };

type StoredClient = { clientId: string; clientSecret?: string; tokenEndpointAuthMethod: string };

export const CLIENT_METADATA_PATH = '/ai/mcp-oauth/client-metadata.json';

/** Our redirect URI, registered with every authorization server exactly as sent. */
export const redirectUriOf = (config: Config) => `${config.publicBaseUrl}/api/ai/mcp-oauth/callback`;

/**
 * Our Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): its URL is our
 * `client_id` where the AS advertises `client_id_metadata_document_supported`. A public client.
 */
export const clientMetadataDocument = (config: Config) => ({
  client_id: `${config.publicBaseUrl}/api${CLIENT_METADATA_PATH}`,
  client_name: 'Agents backend',
  client_uri: config.publicBaseUrl,
  redirect_uris: [redirectUriOf(config)],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none' as const,
  application_type: 'web' as const,
});

/**
 * The SDK's `fetchFn`: `safeFetch` with our bounds, answered buffered, so that a refused URL, a
 * timeout or an oversized body is an OutboundError thrown here, never half a body inside the SDK.
 * A POST carries a code, a secret or a token: it follows no redirect.
 */
export function oauthFetch(config: Config): FetchLike {
  const options = outboundOptions(config);
  return async (url, init = {}) => {
    const request = { ...init, body: init.body == null ? undefined : String(init.body) };
    const answer = await safeFetch(String(url), request, { ...options, ...(init.method === 'POST' && { maxRedirects: 0 }) });
    return new Response(answer.body.length > 0 ? answer.body : null, { status: answer.status, headers: answer.headers });
  };
}

/** A secret as its table keeps it: sealed with the keyring's current key, bound to its row by `context`. */
export function seal(deps: AppDeps, value: unknown, context: string) {
  const { keyId, ciphertext } = sealJson(deps.config.credentialsKeyring, value, context);
  return { keyId, sealed: ciphertext };
}
export const unseal = <T>(deps: AppDeps, { keyId, sealed }: { keyId: string; sealed: Buffer }, context: string) =>
  openJson<T>(deps.config.credentialsKeyring, { keyId, ciphertext: sealed }, context);

export const clientContext = (issuer: string, redirectUri: string) => `mcp-oauth-client:${issuer} ${redirectUri}`;

/** Another initiate registered with the issuer at the same moment and was stored first: run again with it. */
export class RegisteredMeanwhile extends Error {}

/**
 * The clients we can present to an issuer, in the order of the MCP spec's "Client Registration
 * Approaches" (the SDK would try a stored client before CIMD): configured in MCP_OAUTH_CLIENTS;
 * our CIMD URL where `cimd`; the one registered with it before (RFC 7591, sealed).
 */
export async function knownClients(deps: AppDeps, db: CommonQueryMethods, issuer: string, cimd: boolean): Promise<Client[]> {
  const { config } = deps;
  const configured = config.mcpOAuth.clients[issuer];
  const row = await findRegisteredClient(db, issuer, redirectUriOf(config));
  const stored = row && unseal<StoredClient>(deps, row, clientContext(issuer, redirectUriOf(config)));
  const client = (client_id: string, client_secret?: string, token_endpoint_auth_method?: string) => ({
    client_id,
    client_secret,
    token_endpoint_auth_method,
    issuer,
  });
  return [
    ...(configured ? [client(configured.clientId, configured.clientSecret)] : []),
    ...(cimd ? [client(clientMetadataDocument(config).client_id, undefined, 'none')] : []),
    ...(stored ? [client(stored.clientId, stored.clientSecret, stored.tokenEndpointAuthMethod)] : []),
  ];
}

/** What the SDK needs to call a token endpoint without discovery (it reads `token_endpoint` only). */
export const tokenEndpointState = (issuer: string, tokenEndpoint: string, resource: string): OAuthDiscoveryState => ({
  authorizationServerUrl: issuer,
  resourceMetadata: { resource, authorization_servers: [issuer] },
  authorizationServerMetadata: { issuer, token_endpoint: tokenEndpoint } as AuthorizationServerMetadata,
});

/** A token response as stored (undefined fields are not sealed); `scope` is assumed when the response omits it (RFC 6749 §5.1). */
export function tokenSetOf(tokens: OAuthTokens, now: Date, scope: string | undefined): TokenSet {
  if (!tokens.access_token || tokens.token_type.toLowerCase() !== 'bearer')
    throw tokenRequestFailed('the token response has no Bearer access_token');
  const expiresIn = Math.floor(tokens.expires_in ?? 0);
  return {
    accessToken: tokens.access_token,
    tokenType: 'Bearer',
    refreshToken: tokens.refresh_token || undefined,
    expiresAt: expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000).toJSON() : undefined,
    scope: tokens.scope ?? scope,
  };
}

/** Initiate gives `state` and `saveVerifier`; the callback the flow's `client`, `verifier` and `saveTokens`. */
type FlowHooks = {
  client?: Client;
  state?: string;
  verifier?: string;
  saveVerifier?: (verifier: string, client: Client) => Promise<void>;
  saveTokens?: (tokens: OAuthTokens) => Promise<void>;
};

/**
 * The OAuthClientProvider of one flow for the SDK's `auth()` (docs/mcp-oauth.md, "Decisions"):
 * discovery is done and checked before (`discoveryState`), PostgreSQL keeps what the SDK saves
 * (the registered client here; through the hooks the pending authorization with the sealed
 * verifier, and the tokens), nothing redirects (the authorization URL is kept for the caller).
 */
export function flowProvider(deps: AppDeps, discovery: OAuthDiscoveryState, hooks: FlowHooks) {
  const { authorizationServerUrl: issuer, authorizationServerMetadata: metadata } = discovery;
  const redirectUrl = redirectUriOf(deps.config);
  // For RFC 7591 registration: our CIMD document's metadata, with a secret where the AS takes one.
  const { client_id: _url, ...document } = clientMetadataDocument(deps.config);
  const methods = metadata?.token_endpoint_auth_methods_supported;
  const post = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
  let client = hooks.client;
  const provider = {
    authorizationUrl: undefined as URL | undefined,
    redirectUrl,
    clientMetadata: { ...document, token_endpoint_auth_method: post ? 'client_secret_post' : 'client_secret_basic' },
    discoveryState: () => discovery,
    state: () => hooks.state ?? '',
    codeVerifier: () => hooks.verifier ?? '',
    // Tokens are read by the refresh under the row lock (refresh.ts); a new flow always authorizes.
    tokens: () => undefined,
    async clientInformation(): Promise<Client | undefined> {
      client ??= (await knownClients(deps, deps.db, issuer, metadata?.client_id_metadata_document_supported === true))[0];
      if (!client && !metadata?.registration_endpoint) {
        throw clientRegistrationUnavailable(
          'the authorization server offers no dynamic client registration; configure a client for its issuer in MCP_OAUTH_CLIENTS',
        );
      }
      return client;
    },
    /** A new registration (RFC 7591): stored sealed under (issuer, redirect URI); the first of two concurrent ones wins. */
    async saveClientInformation(information: OAuthClientInformationMixed) {
      const { client_id: clientId, client_secret: clientSecret } = information;
      const method = (information as Client).token_endpoint_auth_method ?? (clientSecret ? 'client_secret_basic' : 'none');
      if (method !== 'none' && !clientSecret) throw new Error('the registration response has no client_secret for its auth method');
      const stored: StoredClient = { clientId, tokenEndpointAuthMethod: method, ...(clientSecret ? { clientSecret } : {}) };
      const row = { issuer, redirectUri: redirectUrl, ...seal(deps, stored, clientContext(issuer, redirectUrl)) };
      if (!(await insertRegisteredClient(deps.db, row))) throw new RegisteredMeanwhile('another registration was stored first');
      client = { ...information, issuer };
    },
    saveCodeVerifier: async (verifier: string) => hooks.saveVerifier?.(verifier, client!),
    saveTokens: async (tokens: OAuthTokens) => hooks.saveTokens?.(tokens),
    redirectToAuthorization: (url: URL) => void (provider.authorizationUrl = url),
    /** `auth()` would retry after invalid_grant or invalid_client (a second code exchange or registration): `step()` codes this. */
    invalidateCredentials(scope: string): never {
      throw new Error(`the authorization server answered ${scope === 'tokens' ? 'invalid_grant' : 'invalid_client'}`);
    },
  } satisfies OAuthClientProvider & { authorizationUrl?: URL };
  return provider;
}
