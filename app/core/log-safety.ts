import type { Logger } from 'pino';

/** Body and header fields that hold secrets; their values never reach a log line (ADR 0061). */
export const SECRET_FIELDS = [
  'password',
  'newPassword',
  'currentPassword',
  'oldPassword',
  'refreshToken',
  'accessToken',
  'idToken',
  'token',
  'tokens',
  'credentials',
  'clientSecret',
  'client_secret',
  'apiKey',
  'secret',
  'authorization',
  'cookie',
  'set-cookie',
  'codeVerifier',
  'code_verifier',
] as const;

/** Redaction paths for pino: each secret field at the top level and up to three levels down. */
const REDACT_PATHS = [
  'code',
  ...SECRET_FIELDS.flatMap((field) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
    const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
    return [key.startsWith('[') ? key : field, join('*'), join('*.*'), join('*.*.*')];
  }),
];

const MAX_CAUSES = 3;

/**
 * What of an error reaches the log: its type, message, code and stack, and the same of its
 * causes. Every other property is dropped: driver errors carry the SQL and its bound values,
 * body-parser errors the raw body, HTTP parser errors the raw request bytes (`rawPacket`).
 */
export function safeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const line: Record<string, unknown> = { type: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') line.code = code;
  if (error.stack) line.stack = error.stack;
  if (error.cause !== undefined && depth < MAX_CAUSES) line.cause = safeError(error.cause, depth + 1);
  return line;
}

/**
 * The application's logger: the given one with secret fields censored and errors reduced to
 * `safeError`, whoever built it (server, CLI, tests).
 */
export function hardenLogger(logger: Logger): Logger {
  return logger.child(
    {},
    {
      serializers: { err: safeError, error: safeError },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
  );
}
