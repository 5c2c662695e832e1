import { findAgentMcpServerInAgency } from '../../sql/mcp-oauth-targets.ts';
import { deleteExpiredAuthorizations, insertPendingAuthorization } from '../../sql/mcp-oauth-states.ts';
import type { AppDeps } from '../core/deps.ts';
import { notFound } from '../core/errors.ts';
import type { AccessClaims } from '../core/route.ts';
import { sealJson } from '../crypto/credentials.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import { urlPolicyFor } from '../net/url-policy.ts';
import { clientFor } from './client-registration.ts';
import { canonicalResourceUri, fetchAuthorizationServerMetadata, fetchProtectedResourceMetadata, probeResource } from './discovery.ts';
import { agentNotFound } from '../agents/errors.ts';
import { invalidMetadata, notAnOAuthServer } from './errors.ts';
import { outboundOptions, redirectUriOf } from './outbound.ts';
import { assertS256Supported, createCodeVerifier, s256Challenge } from './pkce.ts';
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
 * Steps 1-10 of docs/mcp-oauth.md (MCP authorization spec): discover the MCP server's
 * authorization server, gate on PKCE S256, obtain a client, persist a single-use pending
 * authorization bound to the caller, agent and server, and answer the authorize URL.
 */
export async function initiateAuthorization(
  deps: AppDeps,
  auth: AccessClaims,
  ids: { agentId: string; serverId: string },
): Promise<InitiatedAuthorization> {
  const target = await findAgentMcpServerInAgency(deps.db, { agencyId: auth.agencyId, ...ids });
  if (!target) throw agentNotFound();
  if (!target.server) throw notFound('MCP server');
  if (target.server.authType !== 'oauth') throw notAnOAuthServer(target.server.authType);

  const options = outboundOptions(deps.config);
  const resource = canonicalResourceUri(target.server.url);
  const challenge = await probeResource(resource, options);
  const prm = await fetchProtectedResourceMetadata(resource, challenge.resourceMetadata, options);
  // Several authorization servers: the client chooses (RFC 9728 §7.6); we take the first.
  const issuer = prm.authorizationServers[0]!;
  if (!isValidIssuer(issuer)) throw invalidMetadata('the authorization server issuer is not a valid https URL');
  const metadata = await fetchAuthorizationServerMetadata(issuer, options);
  assertS256Supported(metadata);
  if (!isBrowserSafeEndpoint(metadata.authorizationEndpoint, urlPolicyFor(deps.config))) {
    throw invalidMetadata('the authorization endpoint must use https');
  }

  const redirectUri = redirectUriOf(deps.config);
  const client = await clientFor(deps, metadata, redirectUri, options);
  // Scope selection strategy (MCP spec): the challenge's scope, else every scope the PRM lists, else none.
  const scope = challenge.scope ?? (prm.scopesSupported?.length ? prm.scopesSupported.join(' ') : undefined);

  const state = createState();
  const stateHash = hashState(state);
  const browserKey = createState();
  const codeVerifier = createCodeVerifier();
  const secrets: PendingSecrets = { codeVerifier, ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}) };
  const sealed = sealJson(deps.config.credentialsKeyring, secrets, stateContext(stateHash));
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + STATE_LIFETIME_MS);
  await deleteExpiredAuthorizations(deps.db, now);
  await insertPendingAuthorization(deps.db, {
    stateHash,
    userId: auth.sub,
    agencyId: auth.agencyId,
    agentId: ids.agentId,
    serverId: ids.serverId,
    keyId: sealed.keyId,
    sealed: sealed.ciphertext,
    issuer,
    issParameterSupported: metadata.issParameterSupported,
    clientId: client.clientId,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    redirectUri,
    resource,
    scope: scope ?? null,
    tokenEndpoint: metadata.tokenEndpoint,
    expiresAt,
    browserKeyHash: hashState(browserKey),
  });

  // RFC 6749 §3.1: the endpoint's own query is kept. `resource` is always sent (RFC 8707 §2).
  const url = new URL(metadata.authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    state,
    code_challenge: s256Challenge(codeVerifier),
    code_challenge_method: 'S256',
    resource,
  };
  if (scope) params.scope = scope;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  deps.logger.info({ agentId: ids.agentId, serverId: ids.serverId, issuer }, 'mcp oauth authorization started');
  return { authorizationUrl: url.href, state, browserKey, expiresAt: expiresAt.toJSON() };
}

/** RFC 8414 §2: an https URL without query or fragment (http allowed where the URL policy allows loopback). */
function isValidIssuer(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** The browser is sent to the authorization endpoint: https, or http to loopback in development. */
function isBrowserSafeEndpoint(raw: string, policy: UrlPolicy): boolean {
  const url = new URL(raw);
  if (url.protocol === 'https:') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return policy.allowLoopbackHttp && (host === 'localhost' || host === '::1' || /^127\./.test(host));
}
