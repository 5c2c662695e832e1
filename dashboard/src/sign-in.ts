/** The sign-in form: login, then `/identity/me` for the address shown in the header. */
import { ApiError, requestJson } from './api.ts';
import type { ApiResponse } from './api-types.generated.ts';
import { retryText } from './retry.ts';
import { session, type TokenPair } from './session.ts';
import { byId, show } from './views.ts';

export type SignIn = { showSignIn(message?: string): void };

export function setUpSignIn(onSignedIn: () => void, onSignedOut: () => void): SignIn {
  const form = byId<HTMLFormElement>('sign-in-form');
  const error = byId('sign-in-error');

  const showSignIn = (message = '') => {
    session.clear();
    onSignedOut();
    show('signIn', message);
    byId('email').focus();
  };

  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
  };

  const signIn = async () => {
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    const password = String(data.get('password') ?? '');
    error.hidden = true;
    if (!email || !password) return fail('Enter your email and password.');
    const button = form.querySelector('button');
    if (button) button.disabled = true;
    try {
      const tokens = await requestJson<TokenPair>('/api/identity/auth/user/login', { body: { email, password } });
      const me = await requestJson<ApiResponse<'GET /identity/me'>>('/api/identity/me', { token: tokens.accessToken });
      session.start(tokens, me.email);
      byId<HTMLInputElement>('password').value = '';
      onSignedIn();
      byId('main').focus();
    } catch (caught) {
      const apiError = caught instanceof ApiError ? caught : undefined;
      fail(
        apiError?.status === 401
          ? 'Wrong email or password.'
          : apiError?.status === 429
            ? `Too many sign-in attempts. ${retryText(apiError)}`
            : `Sign-in failed: ${caught instanceof Error ? caught.message : String(caught)}`,
      );
    } finally {
      if (button) button.disabled = false;
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void signIn();
  });
  byId('sign-out').addEventListener('click', () => {
    void session.signOut().then(() => showSignIn('Signed out.'));
  });
  session.onEnded = (message) => showSignIn(message);
  return { showSignIn };
}
