/**
 * The access token lives in sessionStorage: it survives a reload of this tab and ends with it,
 * and is never sent anywhere but our own API. The refresh token is not kept: when the access
 * token expires (15 minutes), the API answers 401 and the page asks to sign in again.
 */
const KEY = 'usage-dashboard.session';

export type Session = { accessToken: string; email: string };

export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<Session>;
    return typeof parsed.accessToken === 'string' && typeof parsed.email === 'string'
      ? { accessToken: parsed.accessToken, email: parsed.email }
      : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}
