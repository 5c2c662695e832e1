/**
 * The console: sign-in and session, the workspace acted in (agency staff switch between the agency
 * and its client businesses), then one page per hash route (usage, agents, an agent's tools, MCP
 * servers and chat, approvals, members, clients, settings), each loaded when first visited. An
 * invitation's link opens the accept page, which needs no session.
 */
// One stylesheet for every page: CSS imported by a lazily loaded chunk would not be linked.
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { isInvitationLink, showAcceptInvitation } from './accept-invitation.ts';
import { wearHostBrand, wearSignedOutBrand, wearUserBrand } from './brand.ts';
import { leave, route } from './router.ts';
import { session, SESSION_ENDED } from './session.ts';
import { setUpSignIn } from './sign-in.ts';
import { oauthLanding } from './oauth-landing.ts';
import { renderWorkspaceBar, setUpSwitcher } from './switcher.ts';
import { forgetWorkspaces, loadWorkspaces } from './workspace.ts';

/** After sign-in or a resumed session: the workspaces first (every page acts in one), then the page. */
async function start(): Promise<void> {
  if (session.accessToken) await Promise.all([loadWorkspaces(session.accessToken), wearUserBrand(session.accessToken)]);
  renderWorkspaceBar(true);
  await route();
}

const signIn = setUpSignIn(
  () => void start(),
  () => {
    leave();
    forgetWorkspaces();
    renderWorkspaceBar(false);
    wearSignedOutBrand();
  },
);
setUpSwitcher(() => void route());
window.addEventListener('hashchange', () => {
  if (isInvitationLink()) showAcceptInvitation(() => void start());
  else if (session.email) void route();
});

// The sign-in page wears the brand of the host it is served on.
void wearHostBrand();

// Back from an MCP authorization server (the API's browser landing): say how it went.
const landing = oauthLanding();

if (isInvitationLink()) {
  showAcceptInvitation(() => void start());
} else if (session.resumable) {
  void session.refresh().then((ok) => {
    if (!ok) return signIn.showSignIn(SESSION_ENDED);
    return start().then(() => landing?.(route));
  });
} else {
  signIn.showSignIn();
}
