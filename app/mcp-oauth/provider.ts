import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CommonQueryMethods } from 'slonik';
import { findRegisteredClient, insertRegisteredClient } from '../../sql/mcp-oauth-clients.ts';
import type { AppDeps } from '../core/deps.ts';
import type { CodedError } from '../core/errors.ts';
import { openJson, sealJson } from '../crypto/credentials.ts';
import { clientMetadataDocument, clientMetadataDocumentUrl } from './client-metadata.ts';
import { clientRegistrationFailed, clientRegistrationUnavailable, tokenRequestFailed } from './errors.ts';
import { redirectUriOf } from './outbound.ts';

/** A client as the SDK takes it, bound to the issuer it belongs to. */
export type Client = OAuthClientInformationMixed & { token_endpoint_auth_method?: string; issuer: string };

/** Tokens as stored, sealed (ISO `expiresAt`, absent when the AS did not say: RFC 6749 §5.1). */
export type TokenSet = { accessToken: string; tokenType: string; refreshToken?: string; expiresAt?: string; scope?: string };

/** A registered client as stored, sealed (the format kept from before the SDK). */
type StoredClient = { clientId: string; clientSecret?: string; tokenEndpointAuthMethod: string };

export const clientContext = (issuer: string, redirectUri: string) => `mcp-oauth-client:${issuer} ${redirectUri}`;

/** Another initiate registered with the issuer at the same moment and was stored first: run again with it. */
export class RegisteredMeanwhile extends Error {
  override name = 'RegisteredMeanwhile';
}

/**
 * The clients we can present to an issuer, in the order of the MCP spec's "Client Registration
 * Approaches" (the SDK would try a stored client before CIMD): the one configured in
 * MCP_OAUTH_CLIENTS; our Client ID Metadata Document URL where `cimd` (a public client); the one
 * registered with it before (RFC 7591, sealed in mcp_oauth_clients).
 */
export async function knownClients(deps: AppDeps, db: CommonQueryMethods, issuer: string, cimd: boolean): Promise<Client[]> {
  const configured = deps.config.mcpOAuth.clients[issuer];
  const redirectUri = redirectUriOf(deps.config);
  const row = await findRegisteredClient(db, issuer, redirectUri);
  const keyring = deps.config.credentialsKeyring;
  const stored = row && openJson<StoredClient>(keyring, { keyId: row.keyId, ciphertext: row.sealed }, clientContext(issuer, redirectUri));
  const client = (id: string, secret: string | undefined, method?: string) => ({
    client_id: id,
    issuer,
    ...(secret === undefined ? {} : { client_secret: secret }),
    ...(method === undefined ? {} : { token_endpoint_auth_method: method }),
  });
  return [
    ...(configured ? [client(configured.clientId, configured.clientSecret)] : []),
    ...(cimd ? [client(clientMetadataDocumentUrl(deps.config), undefined, 'none')] : []),
    ...(stored ? [client(stored.clientId, stored.clientSecret, stored.tokenEndpointAuthMethod)] : []),
  ];
}

/** What the SDK needs to call a token endpoint without discovery (it reads `token_endpoint` only). */
export const tokenEndpointState = (issuer: string, tokenEndpoint: string, resource: string): OAuthDiscoveryState => ({
  authorizationServerUrl: issuer,
  resourceMetadata: { resource, authorization_servers: [issuer] },
  authorizationServerMetadata: { issuer, token_endpoint: tokenEndpoint } as AuthorizationServerMetadata,
});

/** A token response as stored; `scope` is the scope to assume when the response omits it (RFC 6749 §5.1). */
export function tokenSetOf(tokens: OAuthTokens, now: Date, scope: string | undefined): TokenSet {
  if (!tokens.access_token || tokens.token_type.toLowerCase() !== 'bearer')
    throw tokenRequestFailed('the token response has no Bearer access_token');
  const expiresIn = Math.floor(tokens.expires_in ?? 0);
  const kept = tokens.scope ?? scope;
  return {
    accessToken: tokens.access_token,
    tokenType: 'Bearer',
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    ...(expiresIn > 0 ? { expiresAt: new Date(now.getTime() + expiresIn * 1000).toJSON() } : {}),
    ...(kept === undefined ? {} : { scope: kept }),
  };
}

type FlowHooks = {
  /** The client of a flow taken at the callback; else it is looked up (`knownClients`) or registered. */
  client?: Client;
  state?: string;
  verifier?: string;
  saveVerifier?: (verifier: string, client: Client) => Promise<void>;
  saveTokens?: (tokens: OAuthTokens) => Promise<void>;
  /** What a refusal of our client (invalid_client, invalid_grant) is at this step. */
  refused: (detail: string) => CodedError;
};

/**
 * The OAuthClientProvider of one flow for the SDK's `auth()` (docs/mcp-oauth.md, "Decisions"):
 * discovery is done and checked before (`discoveryState`), PostgreSQL keeps what the SDK saves
 * (the registered client, and through the hooks the pending authorization with the sealed
 * verifier, and the tokens), nothing redirects (the authorization URL is kept for the caller),
 * and a refusal is answered, not retried: `invalidateCredentials` throws.
 */
export class FlowProvider implements OAuthClientProvider {
  readonly #deps: AppDeps;
  readonly #discovery: OAuthDiscoveryState;
  readonly #hooks: FlowHooks;
  #client: Client | undefined;
  authorizationUrl: URL | undefined;

  constructor(deps: AppDeps, discovery: OAuthDiscoveryState, hooks: FlowHooks) {
    [this.#deps, this.#discovery, this.#hooks, this.#client] = [deps, discovery, hooks, hooks.client];
  }

  get redirectUrl() {
    return redirectUriOf(this.#deps.config);
  }

  /** Our metadata (as the CIMD document says it), for RFC 7591 registration: a secret where the AS takes one. */
  get clientMetadata() {
    const { client_id: _url, ...document } = clientMetadataDocument(this.#deps.config);
    const methods = this.#discovery.authorizationServerMetadata?.token_endpoint_auth_methods_supported;
    const post = methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    return { ...document, token_endpoint_auth_method: post ? 'client_secret_post' : 'client_secret_basic' };
  }

  discoveryState = () => this.#discovery;
  state = () => this.#hooks.state ?? '';
  codeVerifier = () => this.#hooks.verifier ?? '';
  /** Tokens are read by the refresh under the row lock (refresh.ts); a new flow always authorizes. */
  tokens = () => undefined;

  async clientInformation(): Promise<Client | undefined> {
    if (this.#client) return this.#client;
    const issuer = this.#discovery.authorizationServerUrl;
    const metadata = this.#discovery.authorizationServerMetadata;
    this.#client = (await knownClients(this.#deps, this.#deps.db, issuer, metadata?.client_id_metadata_document_supported === true))[0];
    if (!this.#client && !metadata?.registration_endpoint) {
      throw clientRegistrationUnavailable(
        'the authorization server offers no dynamic client registration; configure a client for its issuer in MCP_OAUTH_CLIENTS',
      );
    }
    return this.#client;
  }

  /** A new registration (RFC 7591): stored sealed under (issuer, redirect URI); the first of two concurrent ones wins. */
  async saveClientInformation(information: OAuthClientInformationMixed) {
    const client = { ...information, issuer: this.#discovery.authorizationServerUrl } as Client;
    const method = client.token_endpoint_auth_method ?? (client.client_secret ? 'client_secret_basic' : 'none');
    if (method !== 'none' && !client.client_secret)
      throw clientRegistrationFailed('the registration response has no client_secret for its auth method');
    const { client_id: clientId, client_secret: clientSecret, issuer } = client;
    const stored: StoredClient = { clientId, tokenEndpointAuthMethod: method, ...(clientSecret ? { clientSecret } : {}) };
    const redirectUri = this.redirectUrl;
    const { keyId, ciphertext } = sealJson(this.#deps.config.credentialsKeyring, stored, clientContext(issuer, redirectUri));
    const kept = await insertRegisteredClient(this.#deps.db, { issuer, redirectUri, keyId, sealed: ciphertext });
    if (!kept) throw new RegisteredMeanwhile();
    this.#client = client;
  }

  saveCodeVerifier = async (verifier: string) => this.#hooks.saveVerifier?.(verifier, this.#client!);
  saveTokens = async (tokens: OAuthTokens) => this.#hooks.saveTokens?.(tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);

  invalidateCredentials(scope: string): never {
    throw this.#hooks.refused(`the authorization server answered ${scope === 'tokens' ? 'invalid_grant' : 'invalid_client'}`);
  }
}
