/**
 * The console: sign-in and session, then one page per hash route (usage, agents, an agent's
 * tools, MCP servers and chat, settings), each loaded when first visited.
 */
// One stylesheet for every page: CSS imported by a lazily loaded chunk would not be linked.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { leave, route } from './router.ts';
import { session, SESSION_ENDED } from './session.ts';
import { setUpSignIn } from './sign-in.ts';
import { oauthLanding } from './oauth-landing.ts';

const signIn = setUpSignIn(() => void route(), leave);
window.addEventListener('hashchange', () => {
  if (session.email) void route();
});

// Back from an MCP authorization server (the API's browser landing): say how it went.
const landing = oauthLanding();

if (session.resumable) {
  void session.refresh().then((ok) => {
    if (!ok) return signIn.showSignIn(SESSION_ENDED);
    return route().then(() => landing?.(route));
  });
} else {
  signIn.showSignIn();
}
