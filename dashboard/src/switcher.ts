/**
 * The header's workspace switcher (agency staff: the agency and each client business) and the line
 * above every page that says which organization the console acts in. Switching re-renders the
 * page in the chosen workspace; a page of one agent goes back to the agents list (the agent belongs
 * to the workspace left).
 */
import { el } from './format.ts';
import { byId } from './views.ts';
import { actIn, actingOrganizationId, clientBusinesses, homeOrganization, isAgency } from './workspace.ts';

/** Fills the switcher, the acting line and the Clients link from the workspace state. */
export function renderWorkspaceBar(signedIn: boolean): void {
  const bar = byId('workspace-bar');
  const select = byId<HTMLSelectElement>('workspace');
  const acting = byId('acting');
  const home = homeOrganization();
  const businesses = clientBusinesses();
  // The agency's own pages: its clients, plans and brand (never a client workspace's).
  for (const id of ['nav-clients', 'nav-plans', 'nav-branding'])
    byId(id).hidden = !signedIn || !isAgency() || actingOrganizationId() !== undefined;
  bar.hidden = !signedIn || !isAgency() || businesses.length === 0;
  acting.hidden = !signedIn;
  if (!signedIn) return;
  if (home && isAgency()) {
    select.replaceChildren(
      el('option', { value: home.id }, `${home.name} (agency)`),
      ...businesses.map((business) => el('option', { value: business.id }, `${business.name} (client)`)),
    );
    select.value = actingOrganizationId() ?? home.id;
  }
  const business = businesses.find((candidate) => candidate.id === actingOrganizationId());
  acting.dataset.organizationId = business?.id ?? home?.id ?? '';
  acting.dataset.kind = business ? 'business' : 'own';
  acting.replaceChildren(
    ...(business
      ? ['Working in ', el('strong', {}, business.name), `, a client workspace of ${home?.name ?? 'your agency'}.`]
      : ['Working in ', el('strong', {}, home?.name ?? 'your organization'), home && isAgency() ? ', your agency.' : '.']),
  );
}

/** Listens to the switcher: `rerender` shows the current page again in the chosen workspace. */
export function setUpSwitcher(rerender: () => void): void {
  const select = byId<HTMLSelectElement>('workspace');
  select.addEventListener('change', () => {
    actIn(select.value === homeOrganization()?.id ? undefined : select.value);
    renderWorkspaceBar(true);
    if (/^#\/(agents\/|clients|plans|branding)/.test(location.hash)) location.hash = '#/agents';
    else rerender();
  });
}
