import test from 'ava';
import { ConfigError, loadConfig } from '../../app/config.ts';

const base = {
  NODE_ENV: 'test',
  DATA_DIR: '.data-test',
  JWT_SECRET: 'x'.repeat(32),
  CREDENTIALS_KEY: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
};

test('the redirect base defaults to localhost on the configured port and drops a trailing slash', (t) => {
  t.is(loadConfig({ ...base, PORT: '4100' }).publicBaseUrl, 'http://localhost:4100');
  t.is(loadConfig({ ...base, PUBLIC_BASE_URL: 'https://agents.example.com/' }).publicBaseUrl, 'https://agents.example.com');
});

test('a public base URL over plain http to a non-local host is refused', (t) => {
  const error = t.throws(() => loadConfig({ ...base, PUBLIC_BASE_URL: 'http://agents.example.com' }), { instanceOf: ConfigError });
  t.regex(error!.message, /PUBLIC_BASE_URL/);
});

test('configured OAuth clients are read by issuer and malformed ones name the variable', (t) => {
  const clients = JSON.stringify({ 'https://auth.example.com': { clientId: 'abc', clientSecret: 's3cret' } });
  t.deepEqual(loadConfig({ ...base, MCP_OAUTH_CLIENTS: clients }).mcpOAuth.clients, {
    'https://auth.example.com': { clientId: 'abc', clientSecret: 's3cret' },
  });
  for (const bad of [
    '{not json',
    JSON.stringify({ 'https://auth.example.com': { clientSecret: 's3cret' } }),
    JSON.stringify({ 'not a url': { clientId: 'a' } }),
  ]) {
    const error = t.throws(() => loadConfig({ ...base, MCP_OAUTH_CLIENTS: bad }), { instanceOf: ConfigError });
    t.regex(error!.message, /MCP_OAUTH_CLIENTS/);
    t.false(error!.message.includes('s3cret'));
  }
});

test('outbound bounds have defaults and are validated', (t) => {
  const config = loadConfig(base).mcpOAuth;
  t.deepEqual([config.outboundTimeoutMs, config.outboundMaxResponseBytes, config.outboundMaxRedirects], [5000, 262144, 3]);
  t.throws(() => loadConfig({ ...base, OUTBOUND_TIMEOUT_MS: '0' }), { instanceOf: ConfigError, message: /OUTBOUND_TIMEOUT_MS/ });
});
