/**
 * The usage dashboard: sign in, then five analytics answers for the caller's organization.
 * Only same-origin `/api` routes that exist for every client are called; nothing is shown that
 * the API does not answer, apart from running totals for drawing.
 */
import './styles.css';
import { Controls } from './controls.ts';
import { Reports } from './reports.ts';
import { loadSession } from './session.ts';
import { setUpSignIn } from './sign-in.ts';
import { show } from './views.ts';

// The callbacks run on user actions, after all three exist.
const signIn = setUpSignIn(
  () => void reports.load(),
  () => reports.abort(),
);
const controls = new Controls(() => void reports.load());
const reports = new Reports(controls, (message) => signIn.showSignIn(message));

if (loadSession()) {
  show('dashboard');
  void reports.load();
} else {
  signIn.showSignIn();
}
