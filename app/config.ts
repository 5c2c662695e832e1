import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CONFIG_VARIABLES } from './config-variables.ts';
import type { Variable } from './env-variable.ts';
import { generateKeyEntry, KeyringError, parseKeyring, type Keyring } from './crypto/credentials.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The declaration's tree with each variable replaced by its parsed value. */
type Parsed<Tree> = { -readonly [K in keyof Tree]: Tree[K] extends Variable<infer T, string> ? T : Parsed<Tree[K]> };
type Declared = Parsed<typeof CONFIG_VARIABLES>;

/** Validated runtime configuration: the declaration of app/config-variables.ts, read by `loadConfig`. */
export type Config = ReturnType<typeof resolved>;
export type GoogleOAuthConfig = NonNullable<Config['google']>;
/** A pre-registered OAuth client of one authorization server (issuer). */
export type ConfiguredOAuthClient = z.output<typeof oauthClientSchema>;

/** Each variable of a (sub)tree of the declaration, in declaration order. */
export function variablesOf(tree: object = CONFIG_VARIABLES): Variable<unknown>[] {
  return Object.values(tree).flatMap((node: object) => ('schema' in node ? [node as Variable<unknown>] : variablesOf(node)));
}

type Names<Tree> = { [K in keyof Tree]: Tree[K] extends Variable<unknown, infer N> ? N : Names<Tree[K]> }[keyof Tree];
/** Every variable's name. */
export type VariableName = Names<typeof CONFIG_VARIABLES>;

function parseTree(tree: object, env: NodeJS.ProcessEnv): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(tree).map(([key, node]: [string, object]) => {
      if (!('schema' in node)) return [key, parseTree(node, env)];
      const variable = node as Variable<unknown>;
      const parsed = variable.schema.safeParse(env[variable.name] || variable.default);
      if (!parsed.success) throw new ConfigError(`Invalid environment variable ${variable.name}: ${parsed.error.issues[0]!.message}`);
      return [key, parsed.data];
    }),
  );
}

const oauthClientSchema = z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1).optional() }).strict();
const oauthClientsSchema = z.record(z.string().url(), oauthClientSchema);

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
 * Reads and validates the environment (a blank variable counts as absent). Throws a ConfigError
 * naming the bad variable. In development a missing JWT_SECRET or CREDENTIALS_KEY is generated
 * once and kept in DATA_DIR.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseTree(CONFIG_VARIABLES, env) as Declared;
  const required = (name: VariableName, when: string) => new ConfigError(`Invalid environment variable ${name}: required when ${when}`);
  if (e.nodeEnv === 'production') {
    if (!e.jwtSecret) throw required('JWT_SECRET', 'NODE_ENV=production');
    if (!e.databaseUrl) throw required('DATABASE_URL', 'NODE_ENV=production');
    if (!e.credentialsKeyring) throw required('CREDENTIALS_KEY', 'NODE_ENV=production');
  }
  if (e.databaseUrl === undefined && e.databaseReplicaUrl) {
    throw new ConfigError(
      'Invalid environment variable DATABASE_REPLICA_URL: needs DATABASE_URL (a replica of the embedded database cannot exist)',
    );
  }
  if (Boolean(e.google.clientId) !== Boolean(e.google.clientSecret)) {
    throw required(e.google.clientId ? 'GOOGLE_CLIENT_SECRET' : 'GOOGLE_CLIENT_ID', 'the other Google credential is set');
  }
  if (Boolean(e.notifications.smsProviderUrl) !== Boolean(e.notifications.smsProviderKey)) {
    throw required(e.notifications.smsProviderUrl ? 'SMS_PROVIDER_KEY' : 'SMS_PROVIDER_URL', 'the other SMS provider setting is set');
  }
  return resolved(e);
}

/** The values that depend on others, or on files in DATA_DIR. */
function resolved(e: Declared) {
  const embedded = e.databaseUrl === undefined;
  const publicBaseUrl = e.publicBaseUrl ?? `http://localhost:${e.port}`;
  const { clientId, clientSecret } = e.google;
  return {
    ...e,
    jwtSecret: e.jwtSecret ?? readOrCreateSecret(e.dataDir, 'jwt-secret'),
    seedDemo: e.nodeEnv !== 'production' && (e.seedDemo === 'true' || (embedded && e.seedDemo !== 'false')),
    publicBaseUrl,
    google: clientId && clientSecret ? { ...e.google, clientId, clientSecret } : undefined,
    credentialsKeyring: keyringFrom(
      e.credentialsKeyring ?? readOrCreateSecret(e.dataDir, 'credentials-key', 32, () => generateKeyEntry('k1')),
    ),
    mcpOAuth: { ...e.mcpOAuth, clients: parseOAuthClients(e.mcpOAuth.clients) },
    corsOrigins: e.corsOrigins ?? [],
    frontendUrl: e.frontendUrl ?? publicBaseUrl,
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
