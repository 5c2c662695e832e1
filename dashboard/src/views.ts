/** The console's views (sign-in, usage, no access, the other pages) and the notice above them. */
import { session } from './session.ts';

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

const views = { signIn: byId('sign-in'), dashboard: byId('dashboard'), forbidden: byId('forbidden'), page: byId('page') };
export type View = keyof typeof views;

/** Shows one view (and `message` as a notice); `data-view` on the body names it. */
export function show(view: View, message = ''): void {
  for (const [name, element] of Object.entries(views)) element.hidden = name !== view;
  const notice = byId('notice');
  notice.textContent = message;
  notice.hidden = message === '';
  const signedIn = view !== 'signIn' && session.email !== undefined;
  byId('who').hidden = !signedIn;
  byId('nav').hidden = !signedIn;
  byId('who-email').textContent = session.email ?? '';
  document.body.dataset.view = view;
}
