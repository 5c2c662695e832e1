/**
 * The signed-in session (dashboard/README.md, "Decisions", was ADR 0160): the access token lives only in this module's
 * memory; the refresh token is kept in this tab's `sessionStorage` (same origin, this tab,
 * never `localStorage`) so a reload can get a new access token. The access token is refreshed
 * silently before it expires and once on a 401; a refresh the API refuses ends the session.
 */
import { ApiError, requestJson } from './api.ts';
import type { ApiResponse } from './api-types.generated.ts';

const KEY = 'console.session';

/** What login and refresh answer. */
export type TokenPair = ApiResponse<'POST /identity/auth/refresh'>;
type Stored = { refreshToken: string; email: string };

/** Refresh this long before expiry (or at 80% of a shorter lifetime). */
const AHEAD_SECONDS = 60;

export const SESSION_ENDED = 'Your session has ended. Sign in again.';

function readStored(): Stored | undefined {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<Stored> | null;
    return typeof parsed?.refreshToken === 'string' && typeof parsed.email === 'string'
      ? { refreshToken: parsed.refreshToken, email: parsed.email }
      : undefined;
  } catch {
    return undefined;
  }
}

export class Session {
  #accessToken: string | undefined;
  #stored: Stored | undefined = readStored();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<boolean> | undefined;
  #refreshes = 0;
  /** Called once when a refresh is refused (or a stored session cannot be resumed). */
  onEnded: (message: string) => void = () => {};

  get email(): string | undefined {
    return this.#stored?.email;
  }

  /** A refresh token is known (this tab signed in before a reload). */
  get resumable(): boolean {
    return this.#stored !== undefined;
  }

  get accessToken(): string | undefined {
    return this.#accessToken;
  }

  /** After login: keep the pair and schedule the next refresh. */
  start(pair: TokenPair, email: string): void {
    this.#stored = { refreshToken: pair.refreshToken, email };
    this.#accept(pair);
  }

  /**
   * A new access token from the refresh token; concurrent callers share one request (a refresh
   * token works once). Resolves false, after ending the session, when the API refuses it.
   */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#rotate().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Revokes the refresh token's session on the server, then forgets everything here. */
  async signOut(): Promise<void> {
    const refreshToken = this.#stored?.refreshToken;
    this.clear();
    if (refreshToken) await requestJson('/api/identity/auth/logout', { body: { refreshToken } }).catch(() => undefined);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#accessToken = undefined;
    this.#stored = undefined;
    sessionStorage.removeItem(KEY);
    delete document.body.dataset.sessionRefreshes;
  }

  async #rotate(): Promise<boolean> {
    const stored = this.#stored;
    if (!stored) return false;
    try {
      const pair = await requestJson<TokenPair>('/api/identity/auth/refresh', { body: { refreshToken: stored.refreshToken } });
      if (this.#stored !== stored) return false; // signed out meanwhile
      this.#stored = { refreshToken: pair.refreshToken, email: stored.email };
      this.#refreshes++;
      this.#accept(pair);
      return true;
    } catch (error) {
      // A network failure keeps the session (the next call tries again); a refusal ends it.
      if (error instanceof ApiError && (error.status === 401 || error.status === 400)) {
        this.clear();
        this.onEnded(SESSION_ENDED);
      }
      return false;
    }
  }

  #accept(pair: TokenPair): void {
    this.#accessToken = pair.accessToken;
    if (this.#stored) sessionStorage.setItem(KEY, JSON.stringify(this.#stored));
    // How many silent refreshes this page made (read by people and the browser tests).
    document.body.dataset.sessionRefreshes = String(this.#refreshes);
    clearTimeout(this.#timer);
    const seconds = Math.max(pair.expiresIn * 0.8, pair.expiresIn - AHEAD_SECONDS);
    this.#timer = setTimeout(() => void this.refresh(), seconds * 1000);
  }
}

/** The page's one session. */
export const session = new Session();
