import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { CodedError, errorCode, type Localized } from '../core/errors.ts';
import { OutboundError } from '../net/safe-fetch.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const MCP_OAUTH_NOT_OAUTH_SERVER = errorCode(409, 'MCP_OAUTH.NOT_OAUTH_SERVER');
export const MCP_OAUTH_INVALID_STATE = errorCode(400, 'MCP_OAUTH.INVALID_STATE');
export const MCP_OAUTH_HANDOFF_INVALID = errorCode(400, 'MCP_OAUTH.HANDOFF_INVALID');
/** One code, two statuses by design (`issuerMismatch`): a route declares the one it can answer. */
export const MCP_OAUTH_ISSUER_MISMATCH = errorCode(400, 'MCP_OAUTH.ISSUER_MISMATCH');
export const MCP_OAUTH_ISSUER_MISMATCH_DISCOVERY = errorCode(502, 'MCP_OAUTH.ISSUER_MISMATCH');
export const MCP_OAUTH_AUTHORIZATION_DENIED = errorCode(400, 'MCP_OAUTH.AUTHORIZATION_DENIED');
export const MCP_OAUTH_PKCE_UNSUPPORTED = errorCode(502, 'MCP_OAUTH.PKCE_UNSUPPORTED');
export const MCP_OAUTH_DISCOVERY_FAILED = errorCode(502, 'MCP_OAUTH.DISCOVERY_FAILED');
export const MCP_OAUTH_INVALID_METADATA = errorCode(502, 'MCP_OAUTH.INVALID_METADATA');
export const MCP_OAUTH_CLIENT_REGISTRATION_UNAVAILABLE = errorCode(502, 'MCP_OAUTH.CLIENT_REGISTRATION_UNAVAILABLE');
export const MCP_OAUTH_CLIENT_REGISTRATION_FAILED = errorCode(502, 'MCP_OAUTH.CLIENT_REGISTRATION_FAILED');
export const MCP_OAUTH_TOKEN_REQUEST_FAILED = errorCode(502, 'MCP_OAUTH.TOKEN_REQUEST_FAILED');
export const MCP_OAUTH_URL_REFUSED = errorCode(502, 'MCP_OAUTH.URL_REFUSED');
export const MCP_OAUTH_UPSTREAM_RESPONSE_TOO_LARGE = errorCode(502, 'MCP_OAUTH.UPSTREAM_RESPONSE_TOO_LARGE');
export const MCP_OAUTH_UPSTREAM_UNREACHABLE = errorCode(502, 'MCP_OAUTH.UPSTREAM_UNREACHABLE');
export const MCP_OAUTH_UPSTREAM_TIMEOUT = errorCode(504, 'MCP_OAUTH.UPSTREAM_TIMEOUT');

/** What an outbound step can fail with (`outboundFailed`): refused URL, size, invalid JSON, network, timeout. */
export const OUTBOUND_ERRORS = [
  MCP_OAUTH_URL_REFUSED,
  MCP_OAUTH_UPSTREAM_RESPONSE_TOO_LARGE,
  MCP_OAUTH_INVALID_METADATA,
  MCP_OAUTH_UPSTREAM_UNREACHABLE,
  MCP_OAUTH_UPSTREAM_TIMEOUT,
];

/** What exchanging or refreshing a token at the authorization server can fail with. */
export const TOKEN_REQUEST_ERRORS = [MCP_OAUTH_TOKEN_REQUEST_FAILED, ...OUTBOUND_ERRORS];

/** What discovery, the PKCE check and client registration (initiate) can fail with. */
export const DISCOVERY_ERRORS = [
  MCP_OAUTH_DISCOVERY_FAILED,
  MCP_OAUTH_ISSUER_MISMATCH_DISCOVERY,
  MCP_OAUTH_PKCE_UNSUPPORTED,
  MCP_OAUTH_CLIENT_REGISTRATION_UNAVAILABLE,
  MCP_OAUTH_CLIENT_REGISTRATION_FAILED,
  ...OUTBOUND_ERRORS,
];

/**
 * The coded errors of the MCP OAuth flow (docs/mcp-oauth.md). A failure of the remote MCP or
 * authorization server is a 502 (504 for a timeout) whose metadata says what went wrong;
 * metadata never carries a token, code, state, verifier or client secret.
 */

/** The message of a 502: the remote side did not behave as the MCP authorization specification requires. */
const remoteMessages = (detail: string) => ({
  en: `The MCP server's authorization could not be set up: ${detail}`,
  es: `No se pudo configurar la autorización del servidor MCP: ${detail}`,
});

export const notAnOAuthServer = (authType: string) =>
  new CodedError(
    MCP_OAUTH_NOT_OAUTH_SERVER,
    {
      en: 'This MCP server does not use OAuth',
      es: 'Este servidor MCP no usa OAuth',
    },
    { authType },
  );

export const invalidState = () =>
  new CodedError(MCP_OAUTH_INVALID_STATE, {
    en: 'The authorization request is unknown, already used or expired; start again',
    es: 'La solicitud de autorización es desconocida, ya se usó o expiró; vuelve a empezar',
  });

export const handoffInvalid = () =>
  new CodedError(MCP_OAUTH_HANDOFF_INVALID, {
    en: 'This connection was not started in this browser by you, or the link is used or expired; nothing was connected. Start again from the page where you began',
    es: 'Esta conexión no se inició en este navegador por ti, o el enlace ya se usó o expiró; no se conectó nada. Vuelve a empezar desde la página donde comenzaste',
  });

/**
 * `MCP_OAUTH.ISSUER_MISMATCH`: 400 when an authorization response names another issuer than the
 * one the flow started with (RFC 9207, the callback); 502 when the authorization server's own
 * metadata names another issuer (discovery). docs/mcp-oauth.md lists both.
 */
export const issuerMismatch = (where: 'callback' | 'discovery', detail: string) =>
  new CodedError(
    where === 'callback' ? MCP_OAUTH_ISSUER_MISMATCH : MCP_OAUTH_ISSUER_MISMATCH_DISCOVERY,
    where === 'callback'
      ? {
          en: 'The authorization response did not come from the expected authorization server',
          es: 'La respuesta de autorización no provino del servidor de autorización esperado',
        }
      : remoteMessages(detail),
    { detail },
  );

export const authorizationDenied = (error: string, description: string | undefined) =>
  new CodedError(
    MCP_OAUTH_AUTHORIZATION_DENIED,
    {
      en: 'The authorization server did not grant access',
      es: 'El servidor de autorización no concedió el acceso',
    },
    description === undefined ? { error } : { error, errorDescription: description.slice(0, 500) },
  );

// The 502s, one factory per code (docs/mcp-oauth.md, "Errors"); `detail` says what went wrong.
export const pkceUnsupported = (detail: string) => new CodedError(MCP_OAUTH_PKCE_UNSUPPORTED, remoteMessages(detail), { detail });
export const discoveryFailed = (detail: string) => new CodedError(MCP_OAUTH_DISCOVERY_FAILED, remoteMessages(detail), { detail });
export const invalidMetadata = (detail: string) => new CodedError(MCP_OAUTH_INVALID_METADATA, remoteMessages(detail), { detail });
export const clientRegistrationUnavailable = (detail: string) =>
  new CodedError(MCP_OAUTH_CLIENT_REGISTRATION_UNAVAILABLE, remoteMessages(detail), { detail });
export const clientRegistrationFailed = (detail: string) =>
  new CodedError(MCP_OAUTH_CLIENT_REGISTRATION_FAILED, remoteMessages(detail), { detail });
export const tokenRequestFailed = (detail: string) => new CodedError(MCP_OAUTH_TOKEN_REQUEST_FAILED, remoteMessages(detail), { detail });
export const urlRefused = (detail: string) => new CodedError(MCP_OAUTH_URL_REFUSED, remoteMessages(detail), { detail });
export const upstreamResponseTooLarge = (detail: string) =>
  new CodedError(MCP_OAUTH_UPSTREAM_RESPONSE_TOO_LARGE, remoteMessages(detail), { detail });
export const upstreamUnreachable = (detail: string) => new CodedError(MCP_OAUTH_UPSTREAM_UNREACHABLE, remoteMessages(detail), { detail });

/** 504: a remote server (or a concurrent token refresh) did not answer in time. */
export const upstreamTimeout = (messages: Localized, detail: string) => new CodedError(MCP_OAUTH_UPSTREAM_TIMEOUT, messages, { detail });

/** The token refresh lock was not granted in time: the concurrent refresh holding it hangs. */
export const refreshLockTimeout = () =>
  upstreamTimeout(
    { en: 'The token refresh did not finish in time', es: 'La renovación del token no terminó a tiempo' },
    'waiting for a concurrent token refresh',
  );

/** The coded error for an outbound request that failed (refused URL, timeout, size, network). */
export function outboundFailed(error: OutboundError, step: string): CodedError {
  const detail = `${step}: ${error.message}`;
  switch (error.kind) {
    case 'timeout':
      return upstreamTimeout(
        { en: `The remote server did not answer in time (${step})`, es: `El servidor remoto no respondió a tiempo (${step})` },
        detail,
      );
    case 'refused':
      return urlRefused(detail);
    case 'too_large':
      return upstreamResponseTooLarge(detail);
    default:
      return upstreamUnreachable(detail);
  }
}

/**
 * Runs one step of the flow (ours or the MCP SDK's) and codes what it threw: a coded error
 * passes; an OutboundError says what the request met; an OAuth error response is named by its
 * `error` code only (its description and body may echo secrets); a document that is not JSON or
 * not valid metadata is INVALID_METADATA; the SDK's other refusals are `otherwise` (the step's code).
 */
export async function step<T>(
  name: string,
  run: () => Promise<T>,
  otherwise: (detail: string) => CodedError = discoveryFailed,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CodedError) throw error;
    if (error instanceof OutboundError) throw outboundFailed(error, name);
    if (error instanceof OAuthError) throw otherwise(`${name}: the authorization server answered ${error.errorCode}`);
    if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) {
      throw invalidMetadata(`${name}: the answer is not valid JSON metadata`);
    }
    // The SDK's own refusals are plain Errors; anything else (the database's, a bug) is not the remote side's.
    if (error instanceof Error && error.name === 'Error') throw otherwise(`${name}: ${error.message}`);
    throw error;
  }
}
