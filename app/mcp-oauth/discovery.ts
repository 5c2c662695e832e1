import {
  buildDiscoveryUrls,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { OutboundError } from '../net/guarded-fetch.ts';
import { discoveryFailed, invalidMetadata, metadataIssuerMismatch, outboundFailed, pkceUnsupported, step } from './errors.ts';

/**
 * Steps 1-7 of docs/mcp-oauth.md: the SDK fetches and validates the protected resource metadata
 * (RFC 9728) and the authorization server metadata (RFC 8414 / OpenID Connect Discovery); we add
 * what it leaves to the client: the 401 probe, the PRM candidates and their `resource` match, the
 * exact `issuer`, and refusing an AS that does not list S256 (the SDK accepts an absent list).
 */
export async function discover(serverUrl: string, fetchFn: FetchLike) {
  const resource = canonicalResourceUri(serverUrl);
  const challenge = await probeResource(resource, fetchFn);
  const resourceMetadata = await protectedResourceMetadata(resource, challenge.resourceMetadata, fetchFn);
  // Several authorization servers: the client chooses (RFC 9728 §7.6); we take the first.
  const issuer = resourceMetadata.authorization_servers?.[0];
  if (issuer === undefined) throw invalidMetadata('the protected resource metadata names no authorization server');
  // RFC 8414 §2; the scheme is the URL policy's to refuse when the metadata is fetched.
  if (/[?#]/.test(issuer)) throw invalidMetadata('the authorization server issuer has a query or fragment');
  const metadata = await step('fetching the authorization server metadata', () => discoverAuthorizationServerMetadata(issuer, { fetchFn }));
  if (!metadata) throw discoveryFailed('no authorization server metadata for the issuer');
  if (metadata.issuer !== issuer) throw metadataIssuerMismatch('the authorization server metadata names another issuer');
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    throw pkceUnsupported('the authorization server does not advertise PKCE with S256 (code_challenge_methods_supported)');
  }
  const scope = challenge.scope ?? (resourceMetadata.scopes_supported?.join(' ') || undefined);
  // The SDK's OAuthDiscoveryState, which `auth()` takes as done (provider.ts), with the resource and scope.
  return { authorizationServerUrl: issuer, resourceMetadata, authorizationServerMetadata: metadata, resource, scope };
}

/** MCP spec "Canonical Server URI" (RFC 8707 §2): lowercase scheme and host, no fragment, no bare trailing slash. */
export function canonicalResourceUri(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  return url.pathname === '/' && url.search === '' ? url.origin : url.href;
}

export type BearerChallenge = { resourceMetadata?: string; scope?: string; error?: string };

/**
 * The parameters of the `Bearer` challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1:
 * token or quoted-string values; RFC 9728 §5.1 `resource_metadata`). Kept rather than the SDK's
 * reader, which looks at the first scheme only and does not unescape quoted strings.
 */
export function parseBearerChallenge(header: string): BearerChallenge {
  const params: Record<string, string> = {};
  let inBearer = false;
  // scheme | name=token | name="quoted \" string"
  const tokens = /\s*(?:([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))|([A-Za-z0-9!#$%&'*+.^_`|~-]+))\s*,?/gy;
  let match: RegExpExecArray | null;
  while (tokens.lastIndex < header.length && (match = tokens.exec(header)) !== null) {
    if (match[4] !== undefined) inBearer = match[4].toLowerCase() === 'bearer';
    else if (inBearer && match[1] !== undefined) params[match[1].toLowerCase()] ??= match[2]?.replace(/\\(.)/g, '$1') ?? match[3] ?? '';
    if (match[0] === '') break;
  }
  const { resource_metadata: resourceMetadata, scope, error } = params;
  return { ...(resourceMetadata ? { resourceMetadata } : {}), ...(scope ? { scope } : {}), ...(error ? { error } : {}) };
}

/** Step 2: an unauthenticated MCP `initialize`; a 401 Bearer challenge gives the PRM URL and a scope hint. */
async function probeResource(resource: string, fetchFn: FetchLike): Promise<BearerChallenge> {
  const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agents-backend', version: '0.1.0' } };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const response = await step('probing the MCP server', () => fetchFn(resource, { method: 'POST', headers, body }));
  const header = response.headers.get('www-authenticate');
  return response.status === 401 && header !== null ? parseBearerChallenge(header) : {};
}

/** The well-known PRM URIs of a resource, path-specific first (MCP spec; RFC 9728 §3.1). */
export function protectedResourceMetadataUrls(resource: string): string[] {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-protected-resource${path}`,
    ...(path ? [`${url.origin}/.well-known/oauth-protected-resource`] : []),
  ];
}

/** The AS metadata URIs the SDK tries, in the MCP spec's order (RFC 8414 §3.1, OpenID Connect Discovery 1.0 §4). */
export const authorizationServerMetadataUrls = (issuer: string) => buildDiscoveryUrls(issuer).map(({ url }) => url.href);

/**
 * Step 3: the first PRM document, from the challenge's URL then the well-known URIs, whose
 * `resource` is ours (RFC 9728 §3.3: otherwise it MUST NOT be used). A refused or failed request
 * ends discovery; a missing or invalid document moves on to the next candidate.
 */
async function protectedResourceMetadata(resource: string, hint: string | undefined, fetchFn: FetchLike) {
  const problems: string[] = [];
  for (const candidate of new Set([...(hint && URL.canParse(hint) ? [hint] : []), ...protectedResourceMetadataUrls(resource)])) {
    const where = new URL(candidate).pathname;
    try {
      const document = await discoverOAuthProtectedResourceMetadata(resource, { resourceMetadataUrl: candidate }, fetchFn);
      if (canonicalResourceUri(document.resource) === resource) return document;
      problems.push(`${where} describes another resource`);
    } catch (error) {
      if (error instanceof OutboundError) throw outboundFailed(error, 'fetching the protected resource metadata');
      problems.push(`${where}: ${error instanceof Error && error.name === 'Error' ? error.message : 'not valid metadata'}`);
    }
  }
  throw discoveryFailed(`no protected resource metadata for the MCP server (${problems.join('; ')})`);
}
