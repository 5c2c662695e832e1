import { auth, selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import { findAgentMcpServerInAgency } from '../../sql/mcp-oauth-targets.ts';
import { deleteExpiredAuthorizations, insertPendingAuthorization } from '../../sql/mcp-oauth-states.ts';
import { agentNotFound } from '../agents/errors.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound } from '../core/errors.ts';
import type { AccessClaims } from '../core/route.ts';
import { sealJson } from '../crypto/credentials.ts';
import { urlPolicyFor, type UrlPolicy } from '../net/url-policy.ts';
import { discover } from './discovery.ts';
import { clientRegistrationFailed, invalidMetadata, notAnOAuthServer, step } from './errors.ts';
import { oauthFetch, redirectUriOf } from './outbound.ts';
import { FlowProvider, RegisteredMeanwhile, type Client } from './provider.ts';
import { createState, hashState, STATE_LIFETIME_MS } from './state-token.ts';

/**
 * `browserKey` is for the front-end that called initiate, to keep (e.g. in sessionStorage) and
 * present with the hand-off of the browser landing; it never travels through the authorization
 * server. Only its hash is stored, with the flow and the user.
 */
export type InitiatedAuthorization = { authorizationUrl: string; state: string; browserKey: string; expiresAt: string };

/** What the pending record keeps sealed (never in a response or a log). */
export type PendingSecrets = { codeVerifier: string; clientSecret?: string };

export const stateContext = (stateHash: Buffer) => `mcp-oauth-state:${stateHash.toString('hex')}`;

/**
 * Steps 1-8 of docs/mcp-oauth.md: discovery checked by us (discovery.ts), then the SDK's `auth()`
 * obtains the client (FlowProvider: configured, CIMD, stored, else RFC 7591 registration) and
 * builds the authorization URL with PKCE S256; the provider persists the single-use pending
 * authorization, bound to the caller, agent and server, with the verifier sealed.
 */
export async function initiateAuthorization(
  deps: AppDeps,
  caller: AccessClaims,
  ids: { agentId: string; serverId: string },
): Promise<InitiatedAuthorization> {
  const target = await findAgentMcpServerInAgency(deps.db, { agencyId: caller.agencyId, ...ids });
  if (!target) throw agentNotFound();
  if (!target.server) throw notFound('MCP server');
  if (target.server.authType !== 'oauth') throw notAnOAuthServer(target.server.authType);

  const fetchFn = oauthFetch(deps.config);
  const found = await discover(target.server.url, fetchFn);
  if (!isBrowserSafeEndpoint(found.metadata.authorization_endpoint, urlPolicyFor(deps.config))) {
    throw invalidMetadata('the authorization endpoint must use https');
  }
  const [state, browserKey, now] = [createState(), createState(), deps.clock()];
  const stateHash = hashState(state);
  const expiresAt = new Date(now.getTime() + STATE_LIFETIME_MS);
  const saveVerifier = async (codeVerifier: string, client: Client) => {
    const secrets: PendingSecrets = { codeVerifier, ...(client.client_secret ? { clientSecret: client.client_secret } : {}) };
    const sealed = sealJson(deps.config.credentialsKeyring, secrets, stateContext(stateHash));
    await deleteExpiredAuthorizations(deps.db, now);
    await insertPendingAuthorization(deps.db, {
      stateHash,
      userId: caller.sub,
      agencyId: caller.agencyId,
      agentId: ids.agentId,
      serverId: ids.serverId,
      keyId: sealed.keyId,
      sealed: sealed.ciphertext,
      issuer: found.issuer,
      issParameterSupported:
        (found.metadata as { authorization_response_iss_parameter_supported?: unknown }).authorization_response_iss_parameter_supported ===
        true,
      clientId: client.client_id,
      tokenEndpointAuthMethod: selectClientAuthMethod(client, found.metadata.token_endpoint_auth_methods_supported ?? []),
      redirectUri: redirectUriOf(deps.config),
      // What the SDK sends as `resource` (the PRM's, equal to ours as a canonical URI).
      resource: found.resourceMetadata.resource,
      scope: found.scope ?? null,
      tokenEndpoint: found.metadata.token_endpoint,
      expiresAt,
      browserKeyHash: hashState(browserKey),
    });
  };
  const discovery = {
    authorizationServerUrl: found.issuer,
    resourceMetadata: found.resourceMetadata,
    authorizationServerMetadata: found.metadata,
  };
  const run = async (): Promise<URL | undefined> => {
    const refused = (detail: string) => clientRegistrationFailed(`registering the client: ${detail}`);
    const provider = new FlowProvider(deps, discovery, { state, saveVerifier, refused });
    await auth(provider, { serverUrl: found.resource, ...(found.scope ? { scope: found.scope } : {}), fetchFn });
    return provider.authorizationUrl;
  };
  // A registration that lost to a concurrent one runs again with the stored winner.
  const url = await step(
    'registering the client',
    () => run().catch((error) => (error instanceof RegisteredMeanwhile ? run() : Promise.reject(error))),
    clientRegistrationFailed,
  );
  if (!url) throw clientRegistrationFailed('the authorization could not be started');
  deps.logger.info({ agentId: ids.agentId, serverId: ids.serverId, issuer: found.issuer }, 'mcp oauth authorization started');
  return { authorizationUrl: url.href, state, browserKey, expiresAt: expiresAt.toJSON() };
}

/** The browser is sent to the authorization endpoint: https, or http to loopback in development. */
function isBrowserSafeEndpoint(raw: string, policy: UrlPolicy): boolean {
  const url = new URL(raw);
  if (url.protocol === 'https:') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return policy.allowLoopbackHttp && (host === 'localhost' || host === '::1' || /^127\./.test(host));
}
