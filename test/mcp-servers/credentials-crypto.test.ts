import test from 'ava';
import { generateKeyEntry, openJson, parseKeyring, sealJson } from '../../app/crypto/credentials.ts';

const k1 = generateKeyEntry('k1');
const k2 = generateKeyEntry('k2');
const context = 'agency:a/server:s';

test('sealed credentials open with the same keyring and context', (t) => {
  const keyring = parseKeyring(k1);
  const sealed = sealJson(keyring, { Authorization: 'secret-token' }, context);
  t.is(sealed.keyId, 'k1');
  t.false(sealed.ciphertext.toString('latin1').includes('secret-token'));
  t.deepEqual(openJson(keyring, sealed, context), { Authorization: 'secret-token' });
});

test('sealing the same value twice gives different ciphertexts (random IV)', (t) => {
  const keyring = parseKeyring(k1);
  const a = sealJson(keyring, { a: 1 }, context);
  const b = sealJson(keyring, { a: 1 }, context);
  t.notDeepEqual(a.ciphertext, b.ciphertext);
});

test('a value sealed with an older key still opens after rotation, new values use the new key', (t) => {
  const sealed = sealJson(parseKeyring(k1), 'old', context);
  const rotated = parseKeyring(`${k2},${k1}`);
  t.is(openJson(rotated, sealed, context), 'old');
  t.is(sealJson(rotated, 'new', context).keyId, 'k2');
});

test('tampered ciphertext, another context or an unknown key id fail closed', (t) => {
  const keyring = parseKeyring(k1);
  const sealed = sealJson(keyring, { token: 'x' }, context);
  const flipped = Buffer.from(sealed.ciphertext);
  flipped[flipped.length - 1]! ^= 1;
  t.throws(() => openJson(keyring, { keyId: 'k1', ciphertext: flipped }, context));
  t.throws(() => openJson(keyring, sealed, 'agency:b/server:s'));
  t.throws(() => openJson(keyring, { keyId: 'k9', ciphertext: sealed.ciphertext }, context));
  t.throws(() => openJson(keyring, { keyId: 'k1', ciphertext: sealed.ciphertext.subarray(0, 10) }, context));
});

test('a malformed CREDENTIALS_KEY is refused with a message naming the variable', (t) => {
  for (const bad of ['', 'nokey', 'k1:short', 'k1:!!!!', `${k1},${k1}`, `bad id:${k1.slice(3)}`]) {
    const error = t.throws(() => parseKeyring(bad), undefined, bad);
    t.regex(error!.message, /CREDENTIALS_KEY/);
  }
});

test('production requires CREDENTIALS_KEY; development generates one key into the data directory and keeps it', async (t) => {
  const { loadConfig } = await import('../../app/config.ts');
  const { mkdtempSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), DATABASE_URL: 'postgres://h/db' };
  t.throws(() => loadConfig(production), { message: /CREDENTIALS_KEY/ });
  t.throws(() => loadConfig({ ...production, CREDENTIALS_KEY: 'k1:short' }), { message: /CREDENTIALS_KEY/ });
  t.is(loadConfig({ ...production, CREDENTIALS_KEY: `${k2},${k1}` }).credentialsKeyring.current.id, 'k2');

  const dataDir = mkdtempSync(join(tmpdir(), 'creds-'));
  const first = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }).credentialsKeyring;
  const second = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir }).credentialsKeyring;
  t.is(first.current.id, 'k1');
  t.deepEqual(second.current.key, first.current.key);
  t.regex(readFileSync(join(dataDir, 'credentials-key'), 'utf8'), /^k1:[A-Za-z0-9+/]{43}=\n$/);
});
