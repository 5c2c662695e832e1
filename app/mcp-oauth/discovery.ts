import { jsonObjectOf, safeFetch, type OutboundOptions } from '../net/safe-fetch.ts';
import { discoveryFailed, invalidMetadata, issuerMismatch, step } from './errors.ts';

/**
 * Discovery of the MCP server's authorization (MCP authorization spec, "Authorization Server
 * Discovery"): the protected resource metadata (RFC 9728) from the 401 challenge or the
 * well-known URIs, then the authorization server metadata (RFC 8414 / OpenID Connect
 * Discovery 1.0) with its issuer checked.
 */

/**
 * The canonical URI of the MCP server (MCP spec "Canonical Server URI"; RFC 8707 §2):
 * absolute, lowercase scheme and host (WHATWG URL parsing does both), no fragment, and no
 * trailing slash on an empty path.
 */
export function canonicalResourceUri(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  if (url.pathname === '/' && url.search === '') return url.origin;
  return url.href;
}

export type BearerChallenge = { resourceMetadata?: string; scope?: string; error?: string };

/**
 * The parameters of the `Bearer` challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1
 * auth-param syntax: token or quoted-string values; RFC 9728 §5.1 `resource_metadata`).
 * Other schemes' parameters are ignored.
 */
export function parseBearerChallenge(header: string): BearerChallenge {
  const params: Record<string, string> = {};
  let inBearer = false;
  // scheme | name=token | name="quoted \" string"
  const tokens = /\s*(?:([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))|([A-Za-z0-9!#$%&'*+.^_`|~-]+))\s*,?/gy;
  let match: RegExpExecArray | null;
  while (tokens.lastIndex < header.length && (match = tokens.exec(header)) !== null) {
    if (match[4] !== undefined) {
      inBearer = match[4].toLowerCase() === 'bearer';
    } else if (inBearer && match[1] !== undefined) {
      const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
      params[match[1].toLowerCase()] ??= value;
    }
    if (match[0] === '') break;
  }
  const challenge: BearerChallenge = {};
  if (params.resource_metadata) challenge.resourceMetadata = params.resource_metadata;
  if (params.scope) challenge.scope = params.scope;
  if (params.error) challenge.error = params.error;
  return challenge;
}

/**
 * Step 2: an unauthenticated MCP `initialize` request. A 401 with a Bearer challenge gives the
 * metadata URL and scope hint; any other answer gives no hint (the well-known URIs are tried).
 */
export async function probeResource(resource: string, options: OutboundOptions): Promise<BearerChallenge> {
  const response = await step('probing the MCP server', () =>
    safeFetch(
      resource,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'agents-backend', version: '0.1.0' },
          },
        }),
      },
      { ...options, maxRedirects: 0 },
    ),
  );
  const header = response.headers.get('www-authenticate');
  if (response.status !== 401 || header === null) return {};
  return parseBearerChallenge(header);
}

export type ProtectedResourceMetadata = { authorizationServers: string[]; scopesSupported: string[] | undefined };

/** The well-known PRM URIs of a resource, path-specific first (MCP spec; RFC 9728 §3.1). */
export function protectedResourceMetadataUrls(resource: string): string[] {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const urls = [`${url.origin}/.well-known/oauth-protected-resource${path}`];
  if (path !== '') urls.push(`${url.origin}/.well-known/oauth-protected-resource`);
  return urls;
}

/**
 * Step 3: the first PRM document, from the challenge's URL then the well-known URIs, whose
 * `resource` is our resource (RFC 9728 §3.3: otherwise it MUST NOT be used) and that names at
 * least one authorization server.
 */
export async function fetchProtectedResourceMetadata(
  resource: string,
  hint: string | undefined,
  options: OutboundOptions,
): Promise<ProtectedResourceMetadata> {
  const candidates = [...new Set([...(hint ? [hint] : []), ...protectedResourceMetadataUrls(resource)])];
  const problems: string[] = [];
  for (const candidate of candidates) {
    const response = await step('fetching the protected resource metadata', () =>
      safeFetch(candidate, { headers: { accept: 'application/json' } }, options),
    );
    if (response.status !== 200) {
      problems.push(`${pathOf(candidate)} answered ${response.status}`);
      continue;
    }
    const document = await step('reading the protected resource metadata', async () => jsonObjectOf(response));
    if (typeof document.resource !== 'string' || !sameResource(document.resource, resource)) {
      problems.push(`${pathOf(candidate)} describes another resource`);
      continue;
    }
    const servers = document.authorization_servers;
    if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
      throw invalidMetadata('the protected resource metadata names no authorization server');
    }
    const scopes = document.scopes_supported;
    return {
      authorizationServers: servers as string[],
      scopesSupported: Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? (scopes as string[]) : undefined,
    };
  }
  throw discoveryFailed(`no protected resource metadata for the MCP server (${problems.join('; ')})`);
}

function sameResource(a: string, b: string): boolean {
  try {
    return canonicalResourceUri(a) === canonicalResourceUri(b);
  } catch {
    return false;
  }
}

function pathOf(raw: string): string {
  const url = new URL(raw);
  return url.pathname;
}

export type AuthorizationServerMetadata = {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint: string | undefined;
  codeChallengeMethodsSupported: string[] | undefined;
  tokenEndpointAuthMethodsSupported: string[] | undefined;
  issParameterSupported: boolean;
  /** `client_id_metadata_document_supported` (OAuth Client ID Metadata Document draft §4). */
  clientIdMetadataDocumentSupported: boolean;
};

/**
 * The AS metadata URIs to try, in the MCP spec's order ("Authorization Server Metadata
 * Discovery"; RFC 8414 §3.1 inserts the well-known segment before the issuer's path, OpenID
 * Connect Discovery 1.0 §4 appends it).
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  if (path === '') {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Step 4: the first AS metadata document found. Its `issuer` must string-equal the issuer the
 * URL was built from (RFC 8414 §3.3; MCP 2026-07-28); a document that does not is rejected.
 */
export async function fetchAuthorizationServerMetadata(issuer: string, options: OutboundOptions): Promise<AuthorizationServerMetadata> {
  const problems: string[] = [];
  for (const candidate of authorizationServerMetadataUrls(issuer)) {
    const response = await step('fetching the authorization server metadata', () =>
      safeFetch(candidate, { headers: { accept: 'application/json' } }, options),
    );
    if (response.status !== 200) {
      problems.push(`${pathOf(candidate)} answered ${response.status}`);
      continue;
    }
    const document = await step('reading the authorization server metadata', async () => jsonObjectOf(response));
    if (document.issuer !== issuer) {
      throw issuerMismatch('discovery', `the authorization server metadata at ${pathOf(candidate)} names another issuer`);
    }
    const endpoint = (name: string) => {
      const value = document[name];
      if (typeof value !== 'string' || !isHttpUrl(value)) {
        throw invalidMetadata(`the authorization server metadata has no valid ${name}`);
      }
      return value;
    };
    const strings = (name: string) => {
      const value = document[name];
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
    };
    return {
      issuer,
      authorizationEndpoint: endpoint('authorization_endpoint'),
      tokenEndpoint: endpoint('token_endpoint'),
      registrationEndpoint: document.registration_endpoint === undefined ? undefined : endpoint('registration_endpoint'),
      codeChallengeMethodsSupported: strings('code_challenge_methods_supported'),
      tokenEndpointAuthMethodsSupported: strings('token_endpoint_auth_methods_supported'),
      issParameterSupported: document.authorization_response_iss_parameter_supported === true,
      clientIdMetadataDocumentSupported: document.client_id_metadata_document_supported === true,
    };
  }
  throw discoveryFailed(`no authorization server metadata for the issuer (${problems.join('; ')})`);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '';
  } catch {
    return false;
  }
}
