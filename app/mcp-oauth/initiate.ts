import { createHash, randomBytes } from 'node:crypto';
import { auth, selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import { findServerConnection } from '../../sql/agent-mcp-server-connections.ts';
import { deleteExpiredAuthorizations, insertPendingAuthorization } from '../../sql/mcp-oauth-states.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound } from '../core/errors.ts';
import type { ActingScope } from '../core/route-scope.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { discover } from './discovery.ts';
import { clientRegistrationFailed, invalidMetadata, notAnOAuthServer, step } from './errors.ts';
import { flowProvider, oauthFetch, redirectUriOf, RegisteredMeanwhile, seal, type Client } from './provider.ts';

/**
 * `state`, the browser key and the landing's hand-off: 32 CSPRNG bytes (above the 128 bits the
 * MCP spec asks for) in base64url. Only their SHA-256 is stored, so a database reader cannot
 * complete a flow.
 */
export const createState = () => randomBytes(32).toString('base64url');
export const hashState = (state: string) => createHash('sha256').update(state, 'utf8').digest();

const STATE_LIFETIME_MS = 10 * 60 * 1000;

/** What the pending record keeps sealed (never in a response or a log). */
export type PendingSecrets = { codeVerifier: string; clientSecret?: string };

export const stateContext = (stateHash: Buffer) => `mcp-oauth-state:${stateHash.toString('hex')}`;

/**
 * Steps 1-8 of docs/mcp-oauth.md: our checked discovery, then the SDK's `auth()` with our provider
 * (client, PKCE S256, authorization URL), which records the pending authorization bound to the caller.
 * The route's scope has found the agent in the acting organization, where the flow is recorded.
 */
export async function initiateAuthorization(deps: AppDeps, caller: ActingScope, ids: { agentId: string; serverId: string }) {
  const server = await findServerConnection(deps.db, { organizationId: caller.organizationId, ...ids });
  if (!server) throw notFound('MCP server');
  if (server.authType !== 'oauth') throw notAnOAuthServer(server.authType);

  const fetchFn = oauthFetch(deps.config);
  const found = await discover(server.url, fetchFn);
  const { authorizationServerUrl: issuer, authorizationServerMetadata: metadata } = found;
  // The browser is sent there: https, or http to loopback in development.
  const endpoint = new URL(metadata.authorization_endpoint);
  const loopback = /^(localhost|127\.[\d.]+|\[::1\])$/.test(endpoint.hostname);
  if (endpoint.protocol !== 'https:' && !(loopback && urlPolicyFor(deps.config).allowLoopbackHttp)) {
    throw invalidMetadata('the authorization endpoint must use https');
  }
  const [state, browserKey, now] = [createState(), createState(), deps.clock()];
  const stateHash = hashState(state);
  const expiresAt = new Date(now.getTime() + STATE_LIFETIME_MS);
  const saveVerifier = async (codeVerifier: string, client: Client) => {
    const secrets: PendingSecrets = { codeVerifier, ...(client.client_secret ? { clientSecret: client.client_secret } : {}) };
    await deleteExpiredAuthorizations(deps.db, now);
    await insertPendingAuthorization(deps.db, {
      stateHash,
      userId: caller.userId,
      organizationId: caller.organizationId,
      ...ids,
      ...seal(deps, secrets, stateContext(stateHash)),
      issuer,
      issParameterSupported: (metadata as Record<string, unknown>).authorization_response_iss_parameter_supported === true,
      clientId: client.client_id,
      tokenEndpointAuthMethod: selectClientAuthMethod(client, metadata.token_endpoint_auth_methods_supported ?? []),
      redirectUri: redirectUriOf(deps.config),
      // What the SDK sends as `resource` (the PRM's, equal to ours as a canonical URI).
      resource: found.resourceMetadata.resource,
      scope: found.scope ?? null,
      tokenEndpoint: metadata.token_endpoint,
      expiresAt,
      browserKeyHash: hashState(browserKey),
    });
  };
  const run = async (): Promise<URL | undefined> => {
    const provider = flowProvider(deps, found, { state, saveVerifier });
    await auth(provider, { serverUrl: found.resource, scope: found.scope, fetchFn });
    return provider.authorizationUrl;
  };
  // A registration that lost to a concurrent one runs again with the stored winner.
  const retried = () => run().catch((error) => (error instanceof RegisteredMeanwhile ? run() : Promise.reject(error)));
  const url = await step('registering the client', retried, clientRegistrationFailed);
  if (!url) throw clientRegistrationFailed('the authorization could not be started');
  deps.logger.info({ ...ids, issuer }, 'mcp oauth authorization started');
  return { authorizationUrl: url.href, state, browserKey, expiresAt: expiresAt.toJSON() };
}
