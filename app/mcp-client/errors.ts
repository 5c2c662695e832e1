import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const MCP_SERVER_UNREACHABLE = errorCode(502, 'MCP.SERVER_UNREACHABLE');
export const MCP_SERVER_TIMEOUT = errorCode(504, 'MCP.SERVER_TIMEOUT');
export const MCP_SERVER_UNAUTHORIZED = errorCode(502, 'MCP.SERVER_UNAUTHORIZED');
export const MCP_SERVER_PROTOCOL_ERROR = errorCode(502, 'MCP.SERVER_PROTOCOL_ERROR');
export const MCP_SERVER_RESPONSE_TOO_LARGE = errorCode(502, 'MCP.SERVER_RESPONSE_TOO_LARGE');
export const MCP_AUTHORIZATION_REQUIRED = errorCode(409, 'MCP.AUTHORIZATION_REQUIRED');
export const MCP_SERVER_TOOLS_TOO_LARGE = errorCode(502, 'MCP.SERVER_TOOLS_TOO_LARGE');

/** What talking MCP to a server can fail with (tool discovery), beyond a missing authorization. */
export const MCP_SERVER_ERRORS = [
  MCP_SERVER_UNREACHABLE,
  MCP_SERVER_UNAUTHORIZED,
  MCP_SERVER_PROTOCOL_ERROR,
  MCP_SERVER_RESPONSE_TOO_LARGE,
  MCP_SERVER_TOOLS_TOO_LARGE,
  MCP_SERVER_TIMEOUT,
];

/**
 * The coded errors of talking MCP to an agent's server (docs/mcp.md, "Tools of a server").
 * `metadata` never carries a credential or token.
 */

export const serverUnreachable = (detail: string) =>
  new CodedError(
    MCP_SERVER_UNREACHABLE,
    { en: 'The MCP server could not be reached', es: 'No se pudo contactar con el servidor MCP' },
    { detail },
  );

export const serverTimeout = (timeoutMs: number) =>
  new CodedError(
    MCP_SERVER_TIMEOUT,
    { en: 'The MCP server did not answer in time', es: 'El servidor MCP no respondió a tiempo' },
    { timeoutMs },
  );

/** The server refused the stored auth; `status` says what the user has to do. */
export const serverUnauthorized = (status: 'needs_authorization' | 'reauthorization_required', detail: string) =>
  new CodedError(
    MCP_SERVER_UNAUTHORIZED,
    {
      en: 'The MCP server refused the stored credentials; update them or authorize again',
      es: 'El servidor MCP rechazó las credenciales guardadas; actualízalas o vuelve a autorizar',
    },
    { status, detail },
  );

export const serverProtocolError = (detail: string) =>
  new CodedError(
    MCP_SERVER_PROTOCOL_ERROR,
    { en: 'The MCP server answered something that is not valid MCP', es: 'El servidor MCP respondió algo que no es MCP válido' },
    { detail },
  );

export const serverResponseTooLarge = (maxBytes: number) =>
  new CodedError(
    MCP_SERVER_RESPONSE_TOO_LARGE,
    { en: 'The MCP server answered more data than allowed', es: 'El servidor MCP respondió más datos de los permitidos' },
    { maxBytes },
  );

/** An OAuth server that was never authorized (or whose URL changed): start the OAuth flow. */
export const authorizationRequired = () =>
  new CodedError(
    MCP_AUTHORIZATION_REQUIRED,
    {
      en: 'This MCP server is not authorized yet; start its OAuth authorization',
      es: 'Este servidor MCP aún no está autorizado; inicia su autorización OAuth',
    },
    { status: 'needs_authorization' },
  );

/**
 * The server listed more than the service keeps: `limit` is `listing` (all pages together) or
 * the tool field past its cap (`description`, `inputSchema`, ...), then `tool` names the tool.
 */
export const serverToolsTooLarge = (detail: { limit: string; maxBytes: number; tool?: string }) =>
  new CodedError(
    MCP_SERVER_TOOLS_TOO_LARGE,
    {
      en: 'The MCP server lists tools larger than allowed',
      es: 'El servidor MCP lista herramientas más grandes de lo permitido',
    },
    detail.tool === undefined ? { limit: detail.limit, maxBytes: detail.maxBytes } : detail,
  );
