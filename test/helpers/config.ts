import { loadConfig, type Config, type VariableName } from '../../app/config.ts';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** A fixed keyring for tests (never used outside them): current key `t1`, older key `t0`. */
export const TEST_CREDENTIALS_KEY = 't1:dGVzdC1jcmVkZW50aWFscy1rZXktMzItYnl0ZXMhISE=,t0:b2xkZXItdGVzdC1jcmVkZW50aWFscy1rZXktMzJieXQ=';

/** The variables whose test value differs from the declared default (app/config-variables.ts). */
export const TEST_ENVIRONMENT: Partial<Record<VariableName, string>> = {
  NODE_ENV: 'test',
  PORT: '0',
  JWT_SECRET: TEST_JWT_SECRET,
  CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
  DATA_DIR: '.data-test',
  SEED_DEMO: 'false',
  PUBLIC_BASE_URL: 'http://localhost:3000',
  FRONTEND_URL: 'http://localhost:5173',
  // Tests name their client with X-Forwarded-For, as if behind one proxy; the default 0 is tested in test/core/trust-proxy.test.ts.
  TRUST_PROXY_HOPS: '1',
  OUTBOUND_TIMEOUT_MS: '2000',
  OUTBOUND_MAX_RESPONSE_BYTES: '65536',
  MCP_CLIENT_TIMEOUT_MS: '5000',
  MCP_CLIENT_MAX_RESPONSE_BYTES: '1048576',
  // A closed port: a test that reaches the model provider without its own fake fails at once.
  AI_GATEWAY_URL: 'http://127.0.0.1:9/v1',
  AI_PROVIDER_TIMEOUT_MS: '5000',
  MAIL_FROM: 'no-reply@test.example',
  OUTBOX_WORKER: 'false',
};

/** The configuration tests run with: the declaration read with `TEST_ENVIRONMENT`, then `overrides`. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig(TEST_ENVIRONMENT), ...overrides };
}
