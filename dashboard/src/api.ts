/** The only way the page talks to the API: same origin, JSON, bearer token. */

/** A non-2xx answer, with what the page needs to pick its state. */
export class ApiError extends Error {
  readonly status: number;
  /** Seconds from `Retry-After` on a 429, when present. */
  readonly retryAfterSeconds: number | undefined;
  /** The parsed error body (a 400's `errors[].path` names the offending field). */
  readonly body: unknown;

  constructor(status: number, message: string, retryAfterSeconds?: number, body?: unknown) {
    super(message);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.body = body;
  }

  /** A 400's issues: where (`path`) and what. */
  get issues(): { path: string[]; message: string }[] {
    const errors = (this.body as { errors?: unknown } | undefined)?.errors;
    return Array.isArray(errors)
      ? errors.map((issue: { path?: unknown; message?: unknown }) => ({
          path: Array.isArray(issue.path) ? issue.path.map(String) : [],
          message: typeof issue.message === 'string' ? issue.message : '',
        }))
      : [];
  }
}

/** The message of an error body in any of the API's three envelopes. */
export function messageOf(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const record = body as { message?: unknown; errors?: { path?: string[]; message?: string }[] };
    if (Array.isArray(record.errors) && record.errors.length > 0) {
      return record.errors.map((issue) => `${(issue.path ?? []).slice(-1)[0] ?? 'request'}: ${issue.message ?? ''}`).join('; ');
    }
    if (typeof record.message === 'string') return record.message;
    if (record.message && typeof record.message === 'object' && 'en' in record.message) {
      return String((record.message as { en: unknown }).en);
    }
  }
  return `HTTP ${status}`;
}

export type RequestOptions = {
  token?: string;
  /** The organization to act in, sent as `x-org-id` (none: the token's own). */
  organizationId?: string;
  /** Default: POST with a body, GET without. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string>;
  signal?: AbortSignal;
};

/** The answer of a request whose status is 2xx (else an `ApiError`), in the type `accept` asks for. */
async function send(path: string, options: RequestOptions, accept: string): Promise<{ response: Response; text: string }> {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.organizationId) headers['x-org-id'] = options.organizationId;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
    credentials: 'omit',
  });
  const text = await response.text();
  if (!response.ok) {
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiError(
      response.status,
      messageOf(body, response.status),
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      body,
    );
  }
  return { response, text };
}

export async function requestJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { text } = await send(path, options, 'application/json');
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    return undefined as T;
  }
}

/** A 2xx answer's text in the type `accept` names (a CSV export), with its `Content-Type`. */
export async function requestText(path: string, accept: string, options: RequestOptions = {}): Promise<{ text: string; type: string }> {
  const { response, text } = await send(path, options, accept);
  return { text, type: response.headers.get('content-type') ?? accept };
}
