import { CodedError } from '../core/errors.ts';
import { OutboundError } from '../net/safe-fetch.ts';

/**
 * The coded errors of the MCP OAuth flow (docs/mcp-oauth.md). A failure of the remote MCP or
 * authorization server is a 502 (504 for a timeout) whose metadata says what went wrong;
 * metadata never carries a token, code, state, verifier or client secret.
 */

export const notAnOAuthServer = (authType: string) =>
  new CodedError(
    409,
    'MCP_OAUTH.NOT_OAUTH_SERVER',
    {
      en: 'This MCP server does not use OAuth',
      es: 'Este servidor MCP no usa OAuth',
    },
    { authType },
  );

export const invalidState = () =>
  new CodedError(400, 'MCP_OAUTH.INVALID_STATE', {
    en: 'The authorization request is unknown, already used or expired; start again',
    es: 'La solicitud de autorización es desconocida, ya se usó o expiró; vuelve a empezar',
  });

export const issuerMismatch = (detail: string) =>
  new CodedError(
    400,
    'MCP_OAUTH.ISSUER_MISMATCH',
    {
      en: 'The authorization response did not come from the expected authorization server',
      es: 'La respuesta de autorización no provino del servidor de autorización esperado',
    },
    { detail },
  );

export const authorizationDenied = (error: string, description: string | undefined) =>
  new CodedError(
    400,
    'MCP_OAUTH.AUTHORIZATION_DENIED',
    {
      en: 'The authorization server did not grant access',
      es: 'El servidor de autorización no concedió el acceso',
    },
    description === undefined ? { error } : { error, errorDescription: description.slice(0, 500) },
  );

/** The remote side did not behave as the MCP authorization specification requires. */
export const remoteRefused = (reason: string, detail: string) =>
  new CodedError(
    502,
    `MCP_OAUTH.${reason}`,
    {
      en: `The MCP server's authorization could not be set up: ${detail}`,
      es: `No se pudo configurar la autorización del servidor MCP: ${detail}`,
    },
    { detail },
  );

/** The coded error for an outbound request that failed (refused URL, timeout, size, network). */
export function outboundFailed(error: OutboundError, step: string): CodedError {
  const detail = `${step}: ${error.message}`;
  switch (error.kind) {
    case 'timeout':
      return new CodedError(
        504,
        'MCP_OAUTH.UPSTREAM_TIMEOUT',
        { en: `The remote server did not answer in time (${step})`, es: `El servidor remoto no respondió a tiempo (${step})` },
        { detail },
      );
    case 'refused':
      return remoteRefused('URL_REFUSED', detail);
    case 'too_large':
      return remoteRefused('UPSTREAM_RESPONSE_TOO_LARGE', detail);
    case 'invalid_json':
      return remoteRefused('INVALID_METADATA', detail);
    default:
      return remoteRefused('UPSTREAM_UNREACHABLE', detail);
  }
}

/** Runs one outbound step, turning its OutboundError into the coded error naming the step. */
export async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OutboundError) throw outboundFailed(error, name);
    throw error;
  }
}
