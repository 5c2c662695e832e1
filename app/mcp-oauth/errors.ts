import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { CodedError, errorCode, type ErrorCode, type Localized } from '../core/errors.ts';
import { OutboundError } from '../net/guarded-fetch.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const MCP_OAUTH_NOT_OAUTH_SERVER = errorCode(409, 'MCP_OAUTH.NOT_OAUTH_SERVER');
export const MCP_OAUTH_INVALID_STATE = errorCode(400, 'MCP_OAUTH.INVALID_STATE');
export const MCP_OAUTH_HANDOFF_INVALID = errorCode(400, 'MCP_OAUTH.HANDOFF_INVALID');
/** One code, two statuses by design (`issuerMismatch`, `metadataIssuerMismatch`): a route declares the one it can answer. */
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

/** What any step with an outbound request can fail with (`step`, `outboundFailed`). */
const OUTBOUND_ERRORS = [
  MCP_OAUTH_URL_REFUSED,
  MCP_OAUTH_UPSTREAM_RESPONSE_TOO_LARGE,
  MCP_OAUTH_INVALID_METADATA,
  MCP_OAUTH_UPSTREAM_UNREACHABLE,
  MCP_OAUTH_UPSTREAM_TIMEOUT,
];
export const TOKEN_REQUEST_ERRORS = [MCP_OAUTH_TOKEN_REQUEST_FAILED, ...OUTBOUND_ERRORS];
/** Steps 2-5 of the callback, run by the callback and by the completion of a browser landing. */
export const REDEEM_ERRORS = [MCP_OAUTH_ISSUER_MISMATCH, MCP_OAUTH_AUTHORIZATION_DENIED, ...TOKEN_REQUEST_ERRORS];
export const DISCOVERY_ERRORS = [
  MCP_OAUTH_DISCOVERY_FAILED,
  MCP_OAUTH_ISSUER_MISMATCH_DISCOVERY,
  MCP_OAUTH_PKCE_UNSUPPORTED,
  MCP_OAUTH_CLIENT_REGISTRATION_UNAVAILABLE,
  MCP_OAUTH_CLIENT_REGISTRATION_FAILED,
  ...OUTBOUND_ERRORS,
];

/** A 502: the remote MCP or authorization server failed a requirement. `detail` never carries a token, code, state or secret. */
const remote = (code: ErrorCode) => (detail: string) =>
  new CodedError(
    code,
    {
      en: `The MCP server's authorization could not be set up: ${detail}`,
      es: `No se pudo configurar la autorización del servidor MCP: ${detail}`,
    },
    { detail },
  );
export const pkceUnsupported = remote(MCP_OAUTH_PKCE_UNSUPPORTED);
export const discoveryFailed = remote(MCP_OAUTH_DISCOVERY_FAILED);
export const invalidMetadata = remote(MCP_OAUTH_INVALID_METADATA);
export const clientRegistrationUnavailable = remote(MCP_OAUTH_CLIENT_REGISTRATION_UNAVAILABLE);
export const clientRegistrationFailed = remote(MCP_OAUTH_CLIENT_REGISTRATION_FAILED);
export const tokenRequestFailed = remote(MCP_OAUTH_TOKEN_REQUEST_FAILED);
/** The AS metadata names another issuer (RFC 8414 §3.3); an authorization response that does is a 400 (`issuerMismatch`). */
export const metadataIssuerMismatch = remote(MCP_OAUTH_ISSUER_MISMATCH_DISCOVERY);

/** The messages of the codes that do not name the failed step (the 502s above do). */
const MESSAGES = {
  upstreamTimeout: { en: 'A remote server did not answer in time', es: 'Un servidor remoto no respondió a tiempo' },
  notAnOAuthServer: { en: 'This MCP server does not use OAuth', es: 'Este servidor MCP no usa OAuth' },
  invalidState: {
    en: 'The authorization request is unknown, already used or expired; start again',
    es: 'La solicitud de autorización es desconocida, ya se usó o expiró; vuelve a empezar',
  },
  handoffInvalid: {
    en: 'This connection was not started in this browser by you, or the link is used or expired; nothing was connected. Start again from the page where you began',
    es: 'Esta conexión no se inició en este navegador por ti, o el enlace ya se usó o expiró; no se conectó nada. Vuelve a empezar desde la página donde comenzaste',
  },
  issuerMismatch: {
    en: 'The authorization response did not come from the expected authorization server',
    es: 'La respuesta de autorización no provino del servidor de autorización esperado',
  },
  authorizationDenied: { en: 'The authorization server did not grant access', es: 'El servidor de autorización no concedió el acceso' },
} satisfies Record<string, Localized>;

/** 504: a remote server (or the token refresh holding the lock) did not answer in time. */
export const upstreamTimeout = (detail: string) => new CodedError(MCP_OAUTH_UPSTREAM_TIMEOUT, MESSAGES.upstreamTimeout, { detail });
export const notAnOAuthServer = (authType: string) => new CodedError(MCP_OAUTH_NOT_OAUTH_SERVER, MESSAGES.notAnOAuthServer, { authType });
export const invalidState = () => new CodedError(MCP_OAUTH_INVALID_STATE, MESSAGES.invalidState);
export const handoffInvalid = () => new CodedError(MCP_OAUTH_HANDOFF_INVALID, MESSAGES.handoffInvalid);
/** An authorization response from another issuer (RFC 9207). */
export const issuerMismatch = (detail: string) => new CodedError(MCP_OAUTH_ISSUER_MISMATCH, MESSAGES.issuerMismatch, { detail });
export const authorizationDenied = (error: string, description: string | undefined) =>
  new CodedError(MCP_OAUTH_AUTHORIZATION_DENIED, MESSAGES.authorizationDenied, {
    error,
    ...(description === undefined ? {} : { errorDescription: description.slice(0, 500) }),
  });

/** The coded error for an outbound request that failed (refused URL, timeout, size, network). */
export function outboundFailed(error: OutboundError, step: string): CodedError {
  const detail = `${step}: ${error.message}`;
  if (error.kind === 'timeout') return upstreamTimeout(detail);
  if (error.kind === 'refused') return remote(MCP_OAUTH_URL_REFUSED)(detail);
  return remote(error.kind === 'too_large' ? MCP_OAUTH_UPSTREAM_RESPONSE_TOO_LARGE : MCP_OAUTH_UPSTREAM_UNREACHABLE)(detail);
}

/**
 * Runs one step of the flow (ours or the MCP SDK's) and codes what it threw: an OAuth error
 * response by its `error` code only (its description and body may echo secrets), a document
 * that is not JSON or not valid metadata as INVALID_METADATA, the SDK's other refusals as
 * `otherwise` (the step's code).
 */
export async function step<T>(name: string, run: () => Promise<T>, otherwise = discoveryFailed): Promise<T> {
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
