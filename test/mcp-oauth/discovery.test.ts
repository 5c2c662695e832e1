import { createHash } from 'node:crypto';
import { startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import test from 'ava';
import {
  authorizationServerMetadataUrls,
  canonicalResourceUri,
  parseBearerChallenge,
  protectedResourceMetadataUrls,
} from '../../app/mcp-oauth/discovery.ts';

test('the Bearer challenge gives resource_metadata and scope, quoted or not', (t) => {
  t.deepEqual(
    parseBearerChallenge(
      'Bearer realm="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="files:read files:write"',
    ),
    { resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp', scope: 'files:read files:write' },
  );
  t.deepEqual(parseBearerChallenge('bearer error=invalid_token, scope=read'), { error: 'invalid_token', scope: 'read' });
  t.deepEqual(parseBearerChallenge('Bearer scope="a \\"quoted\\" b"'), { scope: 'a "quoted" b' });
});

test("another scheme's parameters are not taken for the Bearer challenge's", (t) => {
  t.deepEqual(parseBearerChallenge('Basic realm="x", resource_metadata="https://evil.example/"'), {});
  t.deepEqual(parseBearerChallenge('Basic realm="x", Bearer resource_metadata="https://good.example/prm"'), {
    resourceMetadata: 'https://good.example/prm',
  });
});

test('protected resource metadata is looked up path-specific first, then at the root (RFC 9728 §3.1)', (t) => {
  t.deepEqual(protectedResourceMetadataUrls('https://mcp.example.com/public/mcp'), [
    'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    'https://mcp.example.com/.well-known/oauth-protected-resource',
  ]);
  t.deepEqual(protectedResourceMetadataUrls('https://mcp.example.com'), ['https://mcp.example.com/.well-known/oauth-protected-resource']);
});

test('authorization server metadata URLs follow the MCP order for issuers with and without a path', (t) => {
  t.deepEqual(authorizationServerMetadataUrls('https://auth.example.com/tenant1'), [
    'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
    'https://auth.example.com/.well-known/openid-configuration/tenant1',
    'https://auth.example.com/tenant1/.well-known/openid-configuration',
  ]);
  t.deepEqual(authorizationServerMetadataUrls('https://auth.example.com'), [
    'https://auth.example.com/.well-known/oauth-authorization-server',
    'https://auth.example.com/.well-known/openid-configuration',
  ]);
});

test('the canonical resource URI lowercases scheme and host and drops the fragment and a bare trailing slash', (t) => {
  t.is(canonicalResourceUri('HTTPS://MCP.Example.com/'), 'https://mcp.example.com');
  t.is(canonicalResourceUri('https://mcp.example.com/Server/MCP#frag'), 'https://mcp.example.com/Server/MCP');
  t.is(canonicalResourceUri('https://mcp.example.com:8443'), 'https://mcp.example.com:8443');
});

test('the PKCE verifier the SDK makes is 43 unreserved characters and the challenge is its S256 (RFC 7636 §4.1-4.2)', async (t) => {
  const start = () =>
    startAuthorization('https://auth.example.com', { clientInformation: { client_id: 'c' }, redirectUrl: 'https://app.example.com/cb' });
  const [first, second] = await Promise.all([start(), start()]);
  t.regex(first.codeVerifier, /^[A-Za-z0-9._~-]{43}$/);
  t.not(first.codeVerifier, second.codeVerifier);
  t.is(
    first.authorizationUrl.searchParams.get('code_challenge'),
    createHash('sha256').update(first.codeVerifier, 'ascii').digest('base64url'),
  );
  t.is(first.authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
});
