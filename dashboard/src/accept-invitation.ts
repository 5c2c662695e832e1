/**
 * The page an invitation's link opens (`#/accept-invitation?type=&email=&invitation=`, mailed by
 * `POST /api/organization/my/invitations`): the invited person chooses a name and a password, the
 * API makes the account (`POST /api/identity/auth/{user,client}/accept-invitation`), and a user is
 * signed in to the organization that invited them. Needs no session.
 */
import { ApiError, requestJson } from './api.ts';
import { el } from './format.ts';
import { session, type TokenPair } from './session.ts';
import { field, pageHeading, say, statusLine } from './ui.ts';
import { byId, show } from './views.ts';

const PREFIX = '#/accept-invitation';

export const isInvitationLink = (): boolean => location.hash.startsWith(PREFIX);

/** The link's fields, or undefined when one is missing. */
function invitation(): { type: 'user' | 'client'; email: string; code: string } | undefined {
  const query = new URLSearchParams(location.hash.slice(PREFIX.length).replace(/^\?/, ''));
  const type = query.get('type') === 'client' ? 'client' : 'user';
  const email = query.get('email') ?? '';
  const code = query.get('invitation') ?? '';
  return email && code ? { type, email, code } : undefined;
}

/** Shows the accept form; `onSignedIn` runs once a user's account is made and signed in. */
export function showAcceptInvitation(onSignedIn: () => void): void {
  session.clear();
  show('page');
  const root = byId('page');
  const status = statusLine('accept-status');
  const found = invitation();
  if (!found) {
    root.replaceChildren(pageHeading('Accept an invitation'), status);
    return say(status, 'This link is incomplete: open the whole link from the invitation email.');
  }
  const name = field('accept-name', 'Your name', { autocomplete: 'name', required: '', maxlength: '200' });
  const password = field(
    'accept-password',
    'Choose a password',
    { type: 'password', autocomplete: 'new-password', required: '', minlength: '8', maxlength: '1024' },
    'At least 8 characters.',
  );
  const submit = el('button', { type: 'submit' }, 'Accept and sign in');
  const form = el(
    'form',
    { id: 'accept-form', class: 'card', novalidate: '', 'aria-label': 'Accept the invitation' },
    el('p', {}, 'You were invited as ', el('strong', {}, found.email), '.'),
    name.block,
    password.block,
    el('div', { class: 'actions' }, submit),
  );
  root.replaceChildren(pageHeading('Accept an invitation'), status, form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = { name: name.input.value.trim(), password: password.input.value };
    if (!chosen.name) return say(status, 'Enter your name.');
    if (chosen.password.length < 8) return say(status, 'Choose a password of at least 8 characters.');
    submit.disabled = true;
    void accept(found, chosen)
      .then((signedIn) => {
        if (signedIn) {
          history.replaceState(null, '', `${location.pathname}#/agents`);
          onSignedIn();
          return;
        }
        form.hidden = true;
        say(status, 'Your account is ready. Sign in where the organization offers its chat.', 'ok');
      })
      .catch((error: unknown) => {
        const invalid = error instanceof ApiError && error.status === 400 && /INVITATION_INVALID/.test(JSON.stringify(error.body));
        say(
          status,
          invalid ? 'This invitation is not valid: it was used, or it expired. Ask for a new one.' : String((error as Error).message),
        );
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
}

/** Accepts; a user is then signed in (true), a client's account is only made (false). */
async function accept(found: { type: 'user' | 'client'; email: string; code: string }, chosen: { name: string; password: string }) {
  const body = { email: found.email, code: found.code, password: chosen.password, name: chosen.name };
  await requestJson(`/api/identity/auth/${found.type}/accept-invitation`, { body });
  if (found.type === 'client') return false;
  const tokens = await requestJson<TokenPair>('/api/identity/auth/user/login', { body: { email: found.email, password: chosen.password } });
  session.start(tokens, found.email);
  return true;
}
