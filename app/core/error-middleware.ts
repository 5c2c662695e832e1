import type { Context, Next } from 'koa';
import { CodedError, HttpError, notFound, ValidationError } from './errors.ts';

type ErrorWithStatus = Error & { status?: number; statusCode?: number };

const GENERIC: Record<number, string> = {
  401: 'Invalid or missing access token',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  501: 'Not implemented',
};

/**
 * The one place where errors become responses (docs/interface.md §1). Errors we did not expect are
 * answered with a bare 500 carrying the request id and handed to `app.on('error')`, the one
 * place where they are logged. No response carries a stack trace, SQL or an internal message.
 */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw notFound(`Route ${ctx.method} ${ctx.path}`);
    }
  } catch (caught) {
    const error = caught as ErrorWithStatus;
    const { status, body } = envelopeOf(error, ctx.state.requestId as string | undefined);
    if (status >= 500) ctx.app.emit('error', error, ctx);
    ctx.status = status;
    ctx.body = body;
    // Headers set by handlers that failed half-way (for example a half-built download) are dropped,
    // but the request id and rate-limit headers set before the failure are kept.
    ctx.remove('Content-Disposition');
    // What is left of a refused body (a reader that stopped at a limit, its nesting or a bad
    // chunk) is discarded as it arrives, neither inflated nor parsed. Left paused, it would be
    // read as the next request of the kept-alive connection (Node dumps a body by itself only when
    // nothing began reading it), and the client would see its connection reset.
    if (!ctx.req.complete && !ctx.req.destroyed) ctx.req.resume();
  }
}

function envelopeOf(error: ErrorWithStatus, requestId: string | undefined): { status: number; body: object } {
  if (error instanceof ValidationError) {
    return { status: 400, body: { statusCode: 400, message: error.message, errors: error.issues } };
  }
  if (error instanceof CodedError) {
    const body: Record<string, unknown> = {
      statusCode: error.status,
      errorCode: error.errorCode,
      message: error.messages,
    };
    if (error.metadata) body.metadata = error.metadata;
    return { status: error.status, body };
  }
  if (error instanceof HttpError) {
    return { status: error.status, body: { ...error.extra, statusCode: error.status, message: error.message } };
  }
  const status = error.status ?? error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Errors raised by koa and @koa/router (405, 501) carry only a status.
    return { status, body: { statusCode: status, message: GENERIC[status] ?? 'Bad request' } };
  }
  return { status: 500, body: { statusCode: 500, message: 'Internal Server Error', requestId } };
}
