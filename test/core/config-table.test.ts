import test from 'ava';
import { readFileSync } from 'node:fs';
import { CONFIG_PAGE, renderConfigTable, tableIn } from '../../bin/docs/config-table.ts';
import { loadConfig, variablesOf } from '../../app/config.ts';
import { TEST_ENVIRONMENT, testConfig } from '../helpers/config.ts';

test("docs/configuration.md's environment table is the one generated from the declaration", (t) => {
  t.is(tableIn(readFileSync(CONFIG_PAGE, 'utf8')), renderConfigTable());
});

test('a changed default shows in the generated table, so a stale docs/configuration.md fails the first test', (t) => {
  const changed = variablesOf().map((v) => (v.name === 'PORT' ? { ...v, default: '8080' } : v));
  t.not(renderConfigTable(changed), renderConfigTable());
  t.regex(renderConfigTable(changed), /^\| `PORT` \| `8080` \| HTTP port \|$/m);
});

test('every variable is declared once, with a default or what its absence means, and a meaning', (t) => {
  const variables = variablesOf();
  t.is(new Set(variables.map((v) => v.name)).size, variables.length);
  for (const v of variables) {
    t.regex(v.name, /^[A-Z][A-Z0-9_]*$/);
    t.true((v.default === undefined) !== (v.absent === undefined), `${v.name}: a default or an absence, not both`);
    t.true(v.meaning.length > 0, v.name);
  }
});

test("every declared default is a valid value of its variable: an empty environment loads, and to the defaults' values", (t) => {
  const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), CREDENTIALS_KEY: `k1:${Buffer.alloc(32).toString('base64')}` });
  t.like(config, { port: 3000, bodyLimitBytes: 102_400, analyticsCacheMaxBytes: 64 * 1024 * 1024, trustProxyHops: 0 });
  t.like(config.notifications, { mailFrom: 'no-reply@localhost', outboxWorker: true });
  t.like(config.ai, { gatewayUrl: 'https://ai-gateway.vercel.sh/v1', maxSteps: 8, providerTimeoutMs: 30_000 });
});

test("the tests' configuration is the declaration read with test values, each of which differs from the default", (t) => {
  for (const v of variablesOf()) {
    const value = TEST_ENVIRONMENT[v.name as keyof typeof TEST_ENVIRONMENT];
    if (value !== undefined) t.not(value, v.default, `${v.name} is set for tests to its default`);
  }
  const config = testConfig();
  t.like(config, { nodeEnv: 'test', port: 0, seedDemo: false, trustProxyHops: 1, publicBaseUrl: 'http://localhost:3000' });
  t.is(config.mcpOAuth.outboundMaxResponseBytes, 64 * 1024);
  t.is(testConfig({ trustProxyHops: 0 }).trustProxyHops, 0);
});
