import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql, type CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { clientMetadataAccepts } from './fake-cimd.ts';

/**
 * A fake MCP protected resource and a fake OAuth authorization server on 127.0.0.1, written
 * from the RFCs (9728, 8414, 7591, 6749, 7636, 8707, 9207), recording what they receive.
 */
export type FakeOptions = {
  /** The MCP endpoint answers 401 with a Bearer challenge naming the PRM (else 401 without one). */
  challenge?: boolean;
  /** Issuer path below the AS origin ('' for an issuer without a path). */
  issuerPath?: string;
  /** `issuer` written into the AS metadata (default: the real issuer). */
  advertisedIssuer?: (issuer: string) => string;
  codeChallengeMethods?: string[] | undefined;
  issParameterSupported?: boolean;
  /** What the authorize redirect carries as `iss`. */
  iss?: 'correct' | 'other' | 'none';
  registration?: boolean;
  /** Advertise `client_id_metadata_document_supported` and fetch the client_id URL on authorize. */
  clientIdMetadataDocument?: boolean;
  /** `expires_in` of issued access tokens, in seconds (default 3600). */
  expiresIn?: number;
  /** Issue a new refresh token on every refresh and revoke the old one (default true). */
  rotateRefreshTokens?: boolean;
  /** Handlers that replace the default for `METHOD /path` on either server. */
  routes?: Record<string, (request: IncomingMessage, response: ServerResponse, fake: FakeOAuth) => void>;
};

export type TokenRequest = { form: URLSearchParams; authorization: string | undefined };

export type FakeOAuth = {
  resourceUrl: string;
  resourceOrigin: string;
  issuer: string;
  asOrigin: string;
  registrations: Record<string, unknown>[];
  authorizeRequests: URLSearchParams[];
  tokenRequests: TokenRequest[];
  /** Challenges (S256) received on authorize, by code. */
  issuedAccessTokens: string[];
  issuedRefreshTokens: string[];
  /** Access tokens the fake MCP resource accepts (issued and not yet replaced by a refresh). */
  validAccessTokens: Set<string>;
  /** Client ID Metadata Documents fetched on authorize. */
  clientMetadataDocuments: Record<string, unknown>[];
  /** Milliseconds the token endpoint waits before answering; `Infinity`: it never answers. */
  tokenDelayMs: number;
  /** Revokes every refresh token issued so far (the user revoked the grant). */
  revokeRefreshTokens(): void;
  hits: string[];
  /** Plays the browser: GETs the authorization URL and answers the query of the redirect. */
  authorize(authorizationUrl: string): Promise<URLSearchParams>;
  close(): Promise<void>;
};

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startFakeOAuth(options: FakeOptions = {}): Promise<FakeOAuth> {
  const codes = new Map<string, { challenge: string; method: string; redirectUri: string; clientId: string; resource: string }>();
  const clients = new Map<string, string>();
  const refreshTokens = new Map<string, { clientId: string; revoked: boolean }>();
  const resourceServer = createServer();
  const asServer = createServer();
  const resourceOrigin = await listen(resourceServer);
  const asOrigin = await listen(asServer);
  const issuerPath = options.issuerPath ?? '/tenant';
  const issuer = `${asOrigin}${issuerPath}`;
  const fake: FakeOAuth = {
    resourceUrl: `${resourceOrigin}/mcp`,
    resourceOrigin,
    issuer,
    asOrigin,
    registrations: [],
    authorizeRequests: [],
    tokenRequests: [],
    issuedAccessTokens: [],
    issuedRefreshTokens: [],
    validAccessTokens: new Set(),
    clientMetadataDocuments: [],
    tokenDelayMs: 0,
    revokeRefreshTokens() {
      for (const grant of refreshTokens.values()) grant.revoked = true;
    },
    hits: [],
    async authorize(authorizationUrl) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}`);
      return new URL(location).searchParams;
    },
    async close() {
      resourceServer.closeAllConnections();
      asServer.closeAllConnections();
      await Promise.all([new Promise((resolve) => resourceServer.close(resolve)), new Promise((resolve) => asServer.close(resolve))]);
    },
  };

  const override = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    fake.hits.push(`${request.method} ${path}`);
    const handler = options.routes?.[`${request.method} ${path}`];
    if (handler) handler(request, response, fake);
    return handler !== undefined;
  };

  resourceServer.on('request', (request, response) => {
    if (override(request, response)) return;
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (request.method === 'POST' && path === '/mcp') {
      const challenge = `Bearer realm="mcp", resource_metadata="${resourceOrigin}/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"`;
      json(response, 401, { error: 'unauthorized' }, options.challenge === false ? {} : { 'www-authenticate': challenge });
      return;
    }
    if (request.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp') {
      json(response, 200, {
        resource: fake.resourceUrl,
        authorization_servers: [issuer],
        scopes_supported: ['mcp:read', 'mcp:write', 'mcp:admin'],
      });
      return;
    }
    json(response, 404, { error: 'not_found' });
  });

  asServer.on('request', async (request, response) => {
    if (override(request, response)) return;
    const url = new URL(request.url ?? '/', asOrigin);
    const route = `${request.method} ${url.pathname}`;
    if (route === `GET /.well-known/oauth-authorization-server${issuerPath}`) {
      const metadata: Record<string, unknown> = {
        issuer: options.advertisedIssuer ? options.advertisedIssuer(issuer) : issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
        authorization_response_iss_parameter_supported: options.issParameterSupported ?? true,
      };
      const methods = 'codeChallengeMethods' in options ? options.codeChallengeMethods : ['S256'];
      if (methods !== undefined) metadata.code_challenge_methods_supported = methods;
      if (options.registration !== false) metadata.registration_endpoint = `${issuer}/register`;
      if (options.clientIdMetadataDocument) metadata.client_id_metadata_document_supported = true;
      json(response, 200, metadata);
      return;
    }
    if (route === `POST ${issuerPath}/register`) {
      const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
      fake.registrations.push(body);
      const clientId = `client-${fake.registrations.length}-${asOrigin.slice(-5)}`;
      const secret = `client-secret-${createHash('sha256').update(clientId).digest('hex').slice(0, 24)}`;
      clients.set(clientId, secret);
      json(response, 201, { ...body, client_id: clientId, client_secret: secret, token_endpoint_auth_method: 'client_secret_basic' });
      return;
    }
    if (route === `GET ${issuerPath}/authorize`) {
      const q = url.searchParams;
      fake.authorizeRequests.push(q);
      if (options.clientIdMetadataDocument && !(await clientMetadataAccepts(q, fake))) {
        json(response, 400, { error: 'invalid_client' });
        return;
      }
      const code = `code-${fake.authorizeRequests.length}-${Math.random().toString(36).slice(2)}`;
      codes.set(code, {
        challenge: q.get('code_challenge') ?? '',
        method: q.get('code_challenge_method') ?? '',
        redirectUri: q.get('redirect_uri') ?? '',
        clientId: q.get('client_id') ?? '',
        resource: q.get('resource') ?? '',
      });
      const target = new URL(q.get('redirect_uri')!);
      target.searchParams.set('code', code);
      target.searchParams.set('state', q.get('state') ?? '');
      const iss = options.iss ?? 'correct';
      if (iss !== 'none') target.searchParams.set('iss', iss === 'correct' ? issuer : 'https://evil.example');
      response.writeHead(302, { location: target.href });
      response.end();
      return;
    }
    if (route === `POST ${issuerPath}/token`) {
      const form = new URLSearchParams(await readBody(request));
      const authorization = request.headers.authorization;
      fake.tokenRequests.push({ form, authorization });
      if (fake.tokenDelayMs === Infinity) return; // hangs: never answers
      // This fake is the external peer: a slow authorization server answers after tokenDelayMs.
      if (fake.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.tokenDelayMs));
      const [basicId, basicSecret] = Buffer.from((authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(':')
        .map(decodeURIComponent);
      // client_secret_basic for registered clients; public clients (CIMD, configured) send client_id.
      const clientId = authorization ? basicId : (form.get('client_id') ?? undefined);
      const clientOk = authorization ? clients.get(basicId ?? '') === basicSecret : clientId !== undefined && !clients.has(clientId);
      if (form.get('grant_type') === 'refresh_token') {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!clientOk || !grant || grant.revoked || grant.clientId !== clientId) {
          json(response, 400, { error: 'invalid_grant' });
          return;
        }
        if (options.rotateRefreshTokens !== false) grant.revoked = true;
        json(response, 200, issue(clientId!, options.rotateRefreshTokens !== false));
        return;
      }
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !issued ||
        issued.method !== 'S256' ||
        issued.challenge !== challenge ||
        issued.redirectUri !== form.get('redirect_uri') ||
        issued.clientId !== clientId ||
        !clientOk
      ) {
        json(response, 400, { error: 'invalid_grant' });
        return;
      }
      json(response, 200, issue(clientId!, true));
      return;
    }
    json(response, 404, { error: 'not_found' });
  });
  function issue(clientId: string, withRefreshToken: boolean) {
    const accessToken = `at-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    fake.issuedAccessTokens.push(accessToken);
    fake.validAccessTokens.add(accessToken);
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: options.expiresIn ?? 3600,
      scope: 'mcp:read',
    };
    if (withRefreshToken) {
      const refreshToken = `rt-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      fake.issuedRefreshTokens.push(refreshToken);
      refreshTokens.set(refreshToken, { clientId, revoked: false });
      body.refresh_token = refreshToken;
    }
    return body;
  }
  return fake;
}

/** An agent MCP server row using OAuth, as the catalog flow saves it. */
export async function insertOAuthServer(
  db: CommonQueryMethods,
  row: { organizationId: string; agentId: string; url: string; authType?: 'oauth' | 'none' | 'static_headers' },
): Promise<string> {
  const id = uuidv7();
  await db.query(sql.unsafe`
    INSERT INTO agent_mcp_servers (id, organization_id, agent_id, name, url, transport_type, auth_type, variant_type)
    VALUES (${id}, ${row.organizationId}, ${row.agentId}, 'Fake MCP', ${row.url}, 'http', ${row.authType ?? 'oauth'},
            ${row.authType === undefined || row.authType === 'oauth' ? 'oauth' : null})`);
  return id;
}
