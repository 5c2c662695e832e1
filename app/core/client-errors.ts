import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

/** Statuses for what Node's HTTP parser refuses; anything else it refuses is a 400. */
const STATUS_OF: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_INVALID_METHOD: 501,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const MESSAGE_OF: Record<number, string> = {
  400: 'Malformed HTTP request',
  408: 'Request timeout',
  413: 'Payload too large',
  431: 'Request header fields too large',
  501: 'Not implemented',
};

/**
 * Answers requests that Node's HTTP parser refuses (they never reach Koa) with the plain
 * envelope `{ statusCode, message }` and closes the connection. The log line names the
 * parser's error code only: the error's `rawPacket` holds the request bytes (headers with
 * their `Authorization` and `Cookie`, and the body), and none of it is logged (ADR 0061).
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = STATUS_OF[error.code ?? ''] ?? 400;
    logger.warn({ parserError: error.code ?? 'unknown', status }, 'malformed request refused');
    answerAndClose(socket, status);
  });
  // CONNECT (a proxy tunnel) is not served: Node would drop the connection without an answer.
  server.on('connect', (_request, socket: Duplex) => {
    logger.warn({ parserError: 'CONNECT', status: 501 }, 'malformed request refused');
    answerAndClose(socket, 501);
  });
}

function answerAndClose(socket: Duplex, status: number): void {
  const body = JSON.stringify({ statusCode: status, message: MESSAGE_OF[status] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Content in a GET, HEAD, DELETE or OPTIONS request has no defined meaning (RFC 9110 §9.3):
 * it is not parsed, so a stray body never turns such a request into a 400.
 */
export async function ignoreBodyOfBodilessMethods(ctx: Context, next: Next): Promise<void> {
  if (BODILESS.has(ctx.method)) (ctx as Context & { disableBodyParser?: boolean }).disableBodyParser = true;
  await next();
}
