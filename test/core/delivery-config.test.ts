import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../app/config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'delivery-config-test-'));

test('by default nothing is sent, the worker runs, no origin is allowed and browsers land on PUBLIC_BASE_URL', (t) => {
  const config = loadConfig({ DATA_DIR: dataDir(), PORT: '7390' });
  t.deepEqual(config.notifications, {
    smtpUrl: undefined,
    mailFrom: 'no-reply@localhost',
    smsProviderUrl: undefined,
    smsProviderKey: undefined,
    outboxWorker: true,
  });
  t.deepEqual(config.corsOrigins, []);
  t.is(config.frontendUrl, 'http://localhost:7390');
});

test('SMTP_URL, the SMS provider, OUTBOX_WORKER, CORS_ORIGINS and FRONTEND_URL are read', (t) => {
  const config = loadConfig({
    DATA_DIR: dataDir(),
    SMTP_URL: 'smtp://mailer:secret@mail.example.com:587',
    MAIL_FROM: 'hello@example.com',
    SMS_PROVIDER_URL: 'https://sms.example.com/v1/messages',
    SMS_PROVIDER_KEY: 'key-1',
    OUTBOX_WORKER: 'false',
    CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    FRONTEND_URL: 'https://app.example.com/after-sign-in/',
  });
  t.like(config.notifications, {
    smtpUrl: 'smtp://mailer:secret@mail.example.com:587',
    mailFrom: 'hello@example.com',
    outboxWorker: false,
  });
  t.deepEqual(config.corsOrigins, ['https://app.example.com', 'http://localhost:5173']);
  t.is(config.frontendUrl, 'https://app.example.com/after-sign-in');
});

test('bad delivery and CORS settings are named in the error', (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ SMTP_URL: 'http://mail.example.com' }, /^Invalid environment variable SMTP_URL: must start with smtp:\/\/ or smtps:\/\//],
    [{ SMS_PROVIDER_URL: 'https://sms.example.com' }, /^Invalid environment variable SMS_PROVIDER_KEY: required/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /^Invalid environment variable CORS_ORIGINS: must be comma-separated origins/],
    [{ CORS_ORIGINS: '*' }, /^Invalid environment variable CORS_ORIGINS/],
    [{ MAIL_FROM: 'not an address' }, /^Invalid environment variable MAIL_FROM/],
  ];
  for (const [env, message] of cases) {
    const error = t.throws(() => loadConfig({ DATA_DIR: dataDir(), ...env }), { instanceOf: ConfigError });
    t.regex(error!.message, message);
  }
});
