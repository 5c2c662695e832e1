import test from 'ava';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../app/config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'config-test-'));

test('a bad variable is named in the error', (t) => {
  const error = t.throws(() => loadConfig({ PORT: 'eighty', DATA_DIR: dataDir() }), { instanceOf: ConfigError });
  t.regex(error!.message, /^Invalid environment variable PORT: /);
  const url = t.throws(() => loadConfig({ DATABASE_URL: 'mysql://x/y', DATA_DIR: dataDir() }), { instanceOf: ConfigError });
  t.regex(url!.message, /^Invalid environment variable DATABASE_URL: must start with postgres:\/\/ or postgresql:\/\//);
});

test('production requires JWT_SECRET and DATABASE_URL and never seeds demo data', (t) => {
  const dir = dataDir();
  t.throws(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://h/db', DATA_DIR: dir }), {
    message: 'Invalid environment variable JWT_SECRET: required when NODE_ENV=production',
  });
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://h/db',
    JWT_SECRET: 'x'.repeat(40),
    CREDENTIALS_KEY: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    SEED_DEMO: 'true',
    DATA_DIR: dir,
  });
  t.false(config.seedDemo);
});

test('in development a missing JWT secret is generated once, kept private, and reused', (t) => {
  const dir = dataDir();
  const first = loadConfig({ DATA_DIR: dir });
  const second = loadConfig({ DATA_DIR: dir });
  t.is(first.jwtSecret, second.jwtSecret);
  t.true(first.jwtSecret.length >= 48);
  t.is(readFileSync(join(dir, 'jwt-secret'), 'utf8').trim(), first.jwtSecret);
  t.is(statSync(join(dir, 'jwt-secret')).mode & 0o777, 0o600);
});

test('the embedded default seeds demo data; a configured server only when asked', (t) => {
  t.true(loadConfig({ DATA_DIR: dataDir() }).seedDemo);
  t.false(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://h/db' }).seedDemo);
  t.true(loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://h/db', SEED_DEMO: 'true' }).seedDemo);
});

test('a read replica needs DATABASE_URL and reads leave it beyond 5 s of lag unless REPLICA_MAX_LAG_MS says otherwise', (t) => {
  t.throws(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://standby/db', DATA_DIR: dataDir() }), {
    message: 'Invalid environment variable DATABASE_REPLICA_URL: needs DATABASE_URL (a replica of the embedded database cannot exist)',
  });
  const url = t.throws(() => loadConfig({ DATABASE_URL: 'postgres://h/db', DATABASE_REPLICA_URL: 'redis://x', DATA_DIR: dataDir() }));
  t.regex(url!.message, /^Invalid environment variable DATABASE_REPLICA_URL: must start with postgres:\/\//);
  const lag = t.throws(() => loadConfig({ REPLICA_MAX_LAG_MS: '-1', DATA_DIR: dataDir() }));
  t.regex(lag!.message, /^Invalid environment variable REPLICA_MAX_LAG_MS: /);
  const defaults = loadConfig({ DATABASE_URL: 'postgres://h/db', DATABASE_REPLICA_URL: 'postgres://standby/db', DATA_DIR: dataDir() });
  t.like(defaults, { databaseReplicaUrl: 'postgres://standby/db', replicaMaxLagMs: 5_000 });
  t.is(loadConfig({ REPLICA_MAX_LAG_MS: '250', DATA_DIR: dataDir() }).replicaMaxLagMs, 250);
});
