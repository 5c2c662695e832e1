import { CodedError, HttpError, ValidationError } from './errors.ts';

/**
 * A handler's answer that sends the browser elsewhere (303 See Other by default: the next
 * request is a GET whatever came before). Used where a provider redirects a plain browser to
 * the API (OAuth callbacks) and the person must land on the front-end.
 */
export class Redirect {
  readonly location: string;
  readonly status: 302 | 303;
  constructor(location: string, status: 302 | 303 = 303) {
    this.location = location;
    this.status = status;
  }
}

/** `base` with `params` added to its query (existing query parameters kept). */
export function landingUrl(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The code a front-end can act on for an error met while handling a browser landing:
 * the error code when there is one, else `VALIDATION_FAILED` or `HTTP_<status>`. Anything
 * else is not an answerable error and is rethrown to the error middleware.
 */
export function landingErrorCode(error: unknown): string {
  if (error instanceof CodedError) return error.errorCode;
  if (error instanceof ValidationError) return 'VALIDATION_FAILED';
  if (error instanceof HttpError) return `HTTP_${error.status}`;
  throw error;
}
