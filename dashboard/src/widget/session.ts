/**
 * The widget's end-user session (docs/channel.md): `POST /api/public/sessions` with the page's
 * publishable key and either its verified user (`data-user-id`, `data-user-hash`) or the visitor
 * token kept in the page origin's `localStorage`; renewed before it expires and once on a 401.
 */

export type Approvals = 'staff' | 'end_user';

export type SessionInfo = {
  sessionToken: string;
  expiresIn: number;
  endUser: { id: string; verified: boolean };
  visitorToken?: string;
  agent: { name: string; greeting: string };
  approvals?: Approvals;
  /** The brand of the agent's agency (docs/billing.md, "Branding"): its color tints the widget. */
  brand?: { productName: string; primaryColor: string };
};

export type User = { id: string; hash: string; name?: string; email?: string };

/** A failure to show the end user: the service's own words when it gave them. */
export class WidgetError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(message: string, status = 0, code = '') {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** `localStorage`, or nothing where the page may not use it (a sandbox, a privacy mode). */
export const store = {
  get(name: string): string | null {
    try {
      return localStorage.getItem(name);
    } catch {
      return null;
    }
  },
  set(name: string, value: string | null): void {
    try {
      if (value === null) localStorage.removeItem(name);
      else localStorage.setItem(name, value);
    } catch {
      // Not kept: the next page load starts a new conversation.
    }
  },
};

const language = () => (document.documentElement.lang || navigator.language || 'en').slice(0, 2).toLowerCase();

/** The error of a refused answer: its envelope's message in the page's language (or English). */
export async function errorOf(response: Response): Promise<WidgetError> {
  let body: { message?: unknown; errorCode?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON: the status says enough.
  }
  const message = body.message;
  let text = typeof message === 'string' ? message : '';
  if (message && typeof message === 'object') {
    const byLanguage = message as Record<string, unknown>;
    const chosen = byLanguage[language()] ?? byLanguage.en;
    if (typeof chosen === 'string') text = chosen;
  }
  const wait = Number(response.headers.get('retry-after'));
  if (response.status === 429 && !body.errorCode && wait > 0) text = `Too many messages. Try again in ${Math.ceil(wait)} seconds.`;
  if (!text || response.status >= 500) text = text || 'The chat is not answering. Try again in a moment.';
  return new WidgetError(text, response.status, typeof body.errorCode === 'string' ? body.errorCode : '');
}

export class Session {
  info: SessionInfo | undefined;
  #opening: Promise<SessionInfo> | undefined;
  #renewal: ReturnType<typeof setTimeout> | undefined;

  readonly base: string;
  readonly publishableKey: string;
  readonly user: User | undefined;

  constructor(base: string, publishableKey: string, user: User | undefined) {
    this.base = base;
    this.publishableKey = publishableKey;
    this.user = user;
  }

  /** Where this key's visitor token is kept; a verified user has none. */
  get #visitorKey() {
    return `agents-chat:${this.publishableKey}:visitor`;
  }

  /** Where the current conversation is kept: per key and per end user (a verified user, or this browser's visitor). */
  get conversationKey() {
    return `agents-chat:${this.publishableKey}:${this.user ? `user:${this.user.id}` : 'visitor'}:conversation`;
  }

  /** The session, opened once (concurrent callers share the request). */
  open(): Promise<SessionInfo> {
    if (this.info) return Promise.resolve(this.info);
    this.#opening ??= this.#request().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #request(): Promise<SessionInfo> {
    const visitorToken = this.user ? null : store.get(this.#visitorKey);
    const body = {
      publishableKey: this.publishableKey,
      ...(visitorToken ? { visitorToken } : {}),
      ...(this.user ? { user: this.user } : {}),
    };
    let response: Response;
    try {
      response = await fetch(`${this.base}/api/public/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'omit',
      });
    } catch {
      throw await this.#unreachable();
    }
    if (!response.ok) throw await errorOf(response);
    const info = (await response.json()) as SessionInfo;
    if (info.visitorToken) store.set(this.#visitorKey, info.visitorToken);
    this.info = info;
    clearTimeout(this.#renewal);
    // Renewed a fifth of its life (at most 5 minutes) before it expires, so no request meets an expired token.
    const renewIn = info.expiresIn - Math.min(300, info.expiresIn / 5);
    this.#renewal = setTimeout(() => void this.renew().catch(() => {}), renewIn * 1000);
    return info;
  }

  /**
   * A refused session answer carries no CORS header (the origin is not allowed): the browser shows
   * the widget a network failure. The service answers `widget.js` to any origin, so if that is
   * reachable, the refusal was the origin's.
   */
  async #unreachable(): Promise<WidgetError> {
    const reachable = await fetch(`${this.base}/widget.js`, { method: 'HEAD', credentials: 'omit' }).then(
      (response) => response.ok,
      () => false,
    );
    return reachable
      ? new WidgetError(`This chat is not available on this website (${location.origin} is not among its allowed addresses).`, 403)
      : new WidgetError('The chat cannot be reached. Check your connection and try again.');
  }

  renew(): Promise<SessionInfo> {
    this.info = undefined;
    return this.open();
  }

  /** A public route with the session's token; a 401 (an expired token: a laptop that slept) renews it once. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const send = async () => {
      const { sessionToken } = await this.open();
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${sessionToken}`);
      return fetch(`${this.base}${path}`, { ...init, headers, credentials: 'omit' });
    };
    const response = await send();
    if (response.status !== 401) return response;
    await this.renew();
    return send();
  }

  close(): void {
    clearTimeout(this.#renewal);
  }
}
