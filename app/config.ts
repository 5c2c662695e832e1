import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { generateKeyEntry, KeyringError, parseKeyring, type Keyring } from './crypto/credentials.ts';

export type {
  Config,
  ConfiguredOAuthClient,
  GoogleOAuthConfig,
  AiConfig,
  McpClientConfig,
  McpOAuthConfig,
  NotificationsConfig,
} from './config-types.ts';
import type { Config, ConfiguredOAuthClient } from './config-types.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const url = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((value) => protocols.includes(new URL(value).protocol), {
      message: `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    });

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  DATABASE_REPLICA_URL: url(['postgres:', 'postgresql:']).optional(),
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).default(5_000),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('.data'),
  SEED_DEMO: z.enum(['true', 'false']).optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  // Google's endpoints (https://accounts.google.com/.well-known/openid-configuration).
  GOOGLE_AUTHORIZATION_URL: url(['https:', 'http:']).default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: url(['https:', 'http:']).default('https://oauth2.googleapis.com/token'),
  GOOGLE_USERINFO_URL: url(['https:', 'http:']).default('https://openidconnect.googleapis.com/v1/userinfo'),
  CREDENTIALS_KEY: z.string().optional(),
  PUBLIC_BASE_URL: url(['https:', 'http:'])
    .refine((value) => !/[?#]/.test(value), { message: 'must be an origin with an optional path, no query' })
    // The OAuth redirect URI must be HTTPS or localhost (MCP authorization spec, "Communication Security").
    .refine((value) => new URL(value).protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(new URL(value).hostname), {
      message: 'must use https (http only for localhost)',
    })
    .optional(),
  MCP_OAUTH_CLIENTS: z.string().optional(),
  OUTBOUND_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
  OUTBOUND_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(256 * 1024),
  OUTBOUND_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(3),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z
    .string()
    .regex(/^[^\s@<>]+@[^\s@<>]+$/, 'must be an email address (local@domain)')
    .default('no-reply@localhost'),
  SMS_PROVIDER_URL: url(['https:', 'http:']).optional(),
  SMS_PROVIDER_KEY: z.string().min(1).optional(),
  OUTBOX_WORKER: z.enum(['true', 'false']).default('true'),
  CORS_ORIGINS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .refine((origins) => origins.every(isOrigin), { message: 'must be comma-separated origins (scheme://host[:port])' })
    .optional(),
  FRONTEND_URL: url(['https:', 'http:']).optional(),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  MCP_CLIENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  MCP_CLIENT_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  MCP_TOOLS_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 3600_000)
    .default(60_000),
  RATE_LIMIT_IPV6_PREFIX: z.coerce.number().int().min(32).max(128).default(56),
  ANALYTICS_CACHE_MAX_MB: z.coerce.number().int().min(1).max(4096).default(64),
  USAGE_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1200).optional(),
  AI_GATEWAY_URL: url(['https:', 'http:']).default('https://ai-gateway.vercel.sh/v1'),
  AI_GATEWAY_API_KEY: z.string().min(1).optional(),
  AI_DEFAULT_MODEL: z
    .string()
    .regex(/^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces')
    .default('openai/gpt-4o-mini'),
  AI_MAX_STEPS: z.coerce.number().int().min(1).max(100).default(8),
  AI_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});

/** `https://app.example.com` yes; `https://app.example.com/`, `*` or a path, no. */
function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

const oauthClientsSchema = z.record(
  z.string().url(),
  z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1).optional() }).strict(),
);

/** Parses `MCP_OAUTH_CLIENTS`: `{ "<issuer>": { "clientId": "...", "clientSecret"?: "..." } }`. */
export function parseOAuthClients(value: string | undefined): Record<string, ConfiguredOAuthClient> {
  if (value === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new ConfigError('Invalid environment variable MCP_OAUTH_CLIENTS: must be JSON');
  }
  const parsed = oauthClientsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid environment variable MCP_OAUTH_CLIENTS: ${issue.path.join('.')} ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Reads and validates the environment. Throws a ConfigError naming the bad variable.
 * In development a missing JWT_SECRET is generated once and kept in DATA_DIR/jwt-secret.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blankAsAbsent = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = envSchema.safeParse(blankAsAbsent);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  if (e.NODE_ENV === 'production' && !e.JWT_SECRET) {
    throw new ConfigError('Invalid environment variable JWT_SECRET: required when NODE_ENV=production');
  }
  if (e.NODE_ENV === 'production' && !e.DATABASE_URL) {
    throw new ConfigError('Invalid environment variable DATABASE_URL: required when NODE_ENV=production');
  }
  if (e.NODE_ENV === 'production' && !e.CREDENTIALS_KEY) {
    throw new ConfigError('Invalid environment variable CREDENTIALS_KEY: required when NODE_ENV=production');
  }
  const embedded = e.DATABASE_URL === undefined;
  if (embedded && e.DATABASE_REPLICA_URL) {
    throw new ConfigError(
      'Invalid environment variable DATABASE_REPLICA_URL: needs DATABASE_URL (a replica of the embedded database cannot exist)',
    );
  }
  if (Boolean(e.GOOGLE_CLIENT_ID) !== Boolean(e.GOOGLE_CLIENT_SECRET)) {
    const missing = e.GOOGLE_CLIENT_ID ? 'GOOGLE_CLIENT_SECRET' : 'GOOGLE_CLIENT_ID';
    throw new ConfigError(`Invalid environment variable ${missing}: required when the other Google credential is set`);
  }
  if (Boolean(e.SMS_PROVIDER_URL) !== Boolean(e.SMS_PROVIDER_KEY)) {
    const missing = e.SMS_PROVIDER_URL ? 'SMS_PROVIDER_KEY' : 'SMS_PROVIDER_URL';
    throw new ConfigError(`Invalid environment variable ${missing}: required when the other SMS provider setting is set`);
  }
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    databaseReplicaUrl: e.DATABASE_REPLICA_URL,
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    redisUrl: e.REDIS_URL,
    jwtSecret: e.JWT_SECRET ?? readOrCreateSecret(dataDir, 'jwt-secret'),
    logLevel: e.LOG_LEVEL,
    dataDir,
    seedDemo: e.NODE_ENV !== 'production' && (e.SEED_DEMO === 'true' || (embedded && e.SEED_DEMO !== 'false')),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    publicBaseUrl,
    google:
      e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
        ? {
            clientId: e.GOOGLE_CLIENT_ID,
            clientSecret: e.GOOGLE_CLIENT_SECRET,
            authorizationUrl: e.GOOGLE_AUTHORIZATION_URL,
            tokenUrl: e.GOOGLE_TOKEN_URL,
            userinfoUrl: e.GOOGLE_USERINFO_URL,
          }
        : undefined,
    credentialsKeyring: keyringFrom(e.CREDENTIALS_KEY ?? readOrCreateSecret(dataDir, 'credentials-key', 32, () => generateKeyEntry('k1'))),
    mcpOAuth: {
      clients: parseOAuthClients(e.MCP_OAUTH_CLIENTS),
      outboundTimeoutMs: e.OUTBOUND_TIMEOUT_MS,
      outboundMaxResponseBytes: e.OUTBOUND_MAX_RESPONSE_BYTES,
      outboundMaxRedirects: e.OUTBOUND_MAX_REDIRECTS,
    },
    notifications: {
      smtpUrl: e.SMTP_URL,
      mailFrom: e.MAIL_FROM,
      smsProviderUrl: e.SMS_PROVIDER_URL,
      smsProviderKey: e.SMS_PROVIDER_KEY,
      outboxWorker: e.OUTBOX_WORKER === 'true',
    },
    corsOrigins: e.CORS_ORIGINS ?? [],
    frontendUrl: (e.FRONTEND_URL ?? publicBaseUrl).replace(/\/+$/, ''),
    trustProxyHops: e.TRUST_PROXY_HOPS,
    mcpClient: {
      timeoutMs: e.MCP_CLIENT_TIMEOUT_MS,
      maxResponseBytes: e.MCP_CLIENT_MAX_RESPONSE_BYTES,
      toolsCacheTtlMs: e.MCP_TOOLS_CACHE_TTL_MS,
    },
    rateLimitIpv6Prefix: e.RATE_LIMIT_IPV6_PREFIX,
    analyticsCacheMaxBytes: e.ANALYTICS_CACHE_MAX_MB * 1024 * 1024,
    usageRetentionMonths: e.USAGE_RETENTION_MONTHS,
    ai: {
      gatewayUrl: e.AI_GATEWAY_URL.replace(/\/+$/, ''),
      gatewayApiKey: e.AI_GATEWAY_API_KEY,
      defaultModel: e.AI_DEFAULT_MODEL,
      maxSteps: e.AI_MAX_STEPS,
      providerTimeoutMs: e.AI_PROVIDER_TIMEOUT_MS,
    },
  };
}

function keyringFrom(value: string): Keyring {
  try {
    return parseKeyring(value);
  } catch (error) {
    if (error instanceof KeyringError) throw new ConfigError(error.message);
    throw error;
  }
}

/** A random secret generated on first use (by `make`, if given) and kept (mode 0600) in the data directory. */
export function readOrCreateSecret(
  dataDir: string,
  name: string,
  bytes = 48,
  make: () => string = () => randomBytes(bytes).toString('base64url'),
): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = make();
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}
