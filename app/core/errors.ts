/** The error types a handler throws; the error middleware turns each into its envelope (docs/interface.md §1). */

export type Localized = { en: string; es: string };
export type ValidationIssue = { path: string[]; message: string };

/** An error answered with `{ statusCode, message, ...extra }`. */
export class HttpError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
    this.name = 'HttpError';
  }
}

/** 400 `{ statusCode: 400, message: 'Validation failed', errors }`. */
export class ValidationError extends HttpError {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super(400, 'Validation failed');
    this.issues = issues;
    this.name = 'ValidationError';
  }
}

/**
 * A coded error's status and literal `AREA.CODE`, defined once in its area's errors.ts
 * (docs/decisions/0101). A route lists the ones it can answer (`errors: [...]`, app/core/route.ts):
 * they feed its OpenAPI responses, and in tests an undeclared one fails (app/core/declared-errors.ts).
 */
export type ErrorCode<C extends string = string> = { readonly status: number; readonly code: C };

export const errorCode = <C extends string>(status: number, code: C): ErrorCode<C> => ({ status, code });

/** The codes every route's chain may answer, declared by the chain rather than per route. */
export const CORE_SERVICE_UNAVAILABLE = errorCode(503, 'CORE.SERVICE_UNAVAILABLE');
export const CORE_IDEMPOTENCY_KEY_IN_FLIGHT = errorCode(409, 'CORE.IDEMPOTENCY_KEY_IN_FLIGHT');
export const CORE_IDEMPOTENCY_KEY_REUSED = errorCode(422, 'CORE.IDEMPOTENCY_KEY_REUSED');
/** Answered by the rate limiter's own body (app/core/rate-limit-body.ts), not by a `CodedError`. */
export const CORE_RATE_LIMIT_EXCEEDED = errorCode(429, 'CORE.RATE_LIMIT_EXCEEDED');

/** An error with a code: `{ statusCode, errorCode, message: { en, es }, metadata? }`. */
export class CodedError extends Error {
  readonly status: number;
  readonly errorCode: string;

  readonly declared: ErrorCode;
  readonly messages: Localized;
  readonly metadata?: Record<string, unknown>;
  constructor(declared: ErrorCode, messages: Localized, metadata?: Record<string, unknown>) {
    super(messages.en);
    this.declared = declared;
    this.messages = messages;
    this.metadata = metadata;
    this.name = 'CodedError';
    this.status = declared.status;
    this.errorCode = declared.code;
  }
}

export const unauthorized = () => new HttpError(401, 'Invalid or missing access token');
export const forbidden = () => new HttpError(403, 'Forbidden');
export const notFound = (what = 'Resource') => new HttpError(404, `${what} not found`);

/**
 * 503 `CORE.SERVICE_UNAVAILABLE` (docs/interface.md §9), shaped like the 429 with `metadata.retryAfterSeconds`.
 * `retryAfterSeconds`: seconds the client should wait; default 1.
 */
export function serviceUnavailable(cause: unknown, retryAfterSeconds = 1): CodedError {
  const seconds = retryAfterSeconds;
  const error = new CodedError(
    CORE_SERVICE_UNAVAILABLE,
    {
      en: `The service is temporarily unavailable. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      es: `El servicio no está disponible temporalmente. Inténtalo de nuevo en ${seconds} segundo${seconds === 1 ? '' : 's'}.`,
    },
    { retryAfterSeconds: seconds },
  );
  error.cause = cause;
  return error;
}

/** 409/422 of a creating POST under an `Idempotency-Key` (app/core/idempotency.ts). */
export const idempotencyKeyInFlight = () =>
  new CodedError(CORE_IDEMPOTENCY_KEY_IN_FLIGHT, {
    en: 'A request with this Idempotency-Key is still being processed. Try again shortly.',
    es: 'Todavía se está procesando una solicitud con esta Idempotency-Key. Inténtalo de nuevo en breve.',
  });

export const idempotencyKeyReused = () =>
  new CodedError(CORE_IDEMPOTENCY_KEY_REUSED, {
    en: 'This Idempotency-Key was used with another request in the last 24 hours.',
    es: 'Esta Idempotency-Key se usó con otra solicitud en las últimas 24 horas.',
  });
