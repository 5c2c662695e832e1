/**
 * An agent's versions (`#/agents/<id>/versions`, docs/evaluations.md "Versions"): every change of
 * its definition, newest first, with who made it, when and its note (20 a page, "Show older");
 * two chosen versions side by side (`version-diff.ts`); and Restore, behind a confirmation, which
 * makes an older version the agent's definition again as a new version
 * (`POST .../versions/:version/restore`, `update` on `ai.agent`). An archived agent's versions
 * stay readable; it cannot be restored into.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { confirmDialog } from '../confirm-dialog.ts';
import type { Agent } from '../console-types.ts';
import { when } from '../end-user.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { versionDiff, type Version } from './version-diff.ts';

type Page = ApiResponse<'GET /ai/agents/:agentId/versions'>;
type Members = ApiResponse<'GET /organization/my/members'>;
const PAGE_SIZE = 20;

/** Names of the organization's people by user id; empty when the caller may not list them (ids are shown then). */
async function peopleNames(signal: AbortSignal): Promise<Map<string, string>> {
  try {
    const page = await api<Members>('/api/organization/my/members', { query: { limit: '200' }, signal });
    return new Map(page.members.map((member) => [member.userId, member.name || member.email]));
  } catch {
    return new Map();
  }
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = ''] = params;
  const heading = pageHeading('Versions');
  const status = statusLine('versions-status');
  root.append(el('p', { class: 'links' }, el('a', { href: `#/agents/${agentId}` }, "Back to the agent's page")), heading, status);
  status.textContent = 'Loading…';
  const versions: Version[] = [];
  let hasMore = false;
  let agent: Agent | undefined;
  let names = new Map<string, string>();
  const readPage = async () => {
    const query: Record<string, string> = {
      limit: String(PAGE_SIZE),
      ...(versions.length > 0 ? { before: String(versions.at(-1)!.version) } : {}),
    };
    const page = await api<Page>(`/api/ai/agents/${agentId}/versions`, { query, signal });
    versions.push(...page.versions);
    hasMore = page.hasMore;
  };
  try {
    // An archived agent is 404 here but its versions are readable: then the page only reads.
    const found = api<Agent>(`/api/ai/agents/${agentId}`, { signal }).catch(() => undefined);
    const [foundAgent, foundNames] = await Promise.all([found, peopleNames(signal), readPage()]);
    agent = foundAgent;
    names = foundNames;
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }
  const agentName = agent?.name ?? versions[0]?.definition.name ?? 'the agent';
  heading.textContent = `Versions of ${agentName}`;
  say(
    status,
    versions.length === 0
      ? 'No versions yet: the first change of the definition records one.'
      : agent
        ? ''
        : 'This agent is archived: its versions are shown, none can be restored.',
    'ok',
  );

  const list = el('ol', { class: 'versions', id: 'version-list' });
  const more = el('button', { type: 'button', id: 'versions-more' }, 'Show older versions');
  const restoreStatus = statusLine('version-restore-status');
  const fromSelect = el('select', { id: 'version-from', name: 'version-from' });
  const toSelect = el('select', { id: 'version-to', name: 'version-to' });
  const diffSummary = statusLine('version-diff-summary');
  const diffSlot = el('div', { class: 'table-scroll' });

  const who = (version: Version) =>
    version.createdBy === null ? 'recorded when versions began' : `by ${names.get(version.createdBy) ?? `user ${version.createdBy}`}`;

  const item = (version: Version, newest: boolean): HTMLElement => {
    const row = el(
      'li',
      { 'data-version': String(version.version) },
      el('h3', {}, `Version ${version.version}`, newest ? el('span', { class: 'note' }, ' (current)') : ''),
      el('p', { class: 'note' }, `${who(version)}, ${when(version.createdAt)}`),
      el('p', {}, version.note ? `Note: ${version.note}` : el('span', { class: 'note' }, 'No note.')),
    );
    if (!agent || newest) return row;
    const open = el(
      'button',
      { type: 'button', id: `version-restore-${version.version}`, 'aria-label': `Restore version ${version.version} of ${agentName}` },
      'Restore',
    );
    const dialog = confirmDialog({
      id: `version-restore-${version.version}`,
      open,
      status: restoreStatus,
      title: `Restore version ${version.version} of ${agentName}?`,
      text:
        `Its name, description, instructions, model settings, guardrails and tool permissions become the agent's definition now, ` +
        `recorded as a new version; later versions are kept. Chats already answering finish as they began.`,
      confirmLabel: 'Restore',
      grant: 'update on ai.agent',
      act: () =>
        api<Agent>(`/api/ai/agents/${agentId}/versions/${version.version}/restore`, {
          method: 'POST',
          body: { note: `Restored version ${version.version}` },
        }),
      done: () => void reload(`Version ${version.version} was restored as a new version.`),
    });
    row.append(el('div', { class: 'actions' }, open), dialog);
    return row;
  };

  const fillChoices = () => {
    const keep = [fromSelect.value, toSelect.value];
    for (const select of [fromSelect, toSelect])
      select.replaceChildren(...versions.map((version) => el('option', { value: String(version.version) }, `Version ${version.version}`)));
    fromSelect.value = keep[0] || String(versions[1]?.version ?? versions[0]?.version ?? '');
    toSelect.value = keep[1] || String(versions[0]?.version ?? '');
  };
  const drawDiff = () => {
    const from = versions.find((version) => String(version.version) === fromSelect.value);
    const to = versions.find((version) => String(version.version) === toSelect.value);
    if (!from || !to) return diffSlot.replaceChildren();
    const [older, newer] = from.version <= to.version ? [from, to] : [to, from];
    const { table, changed } = versionDiff(older, newer);
    diffSlot.replaceChildren(table);
    say(
      diffSummary,
      older.version === newer.version
        ? 'The same version on both sides.'
        : changed.length === 0
          ? `Versions ${older.version} and ${newer.version} have the same definition.`
          : `Changed from version ${older.version} to ${newer.version}: ${changed.join(', ')}.`,
      'ok',
    );
  };
  const draw = () => {
    list.replaceChildren(...versions.map((version, index) => item(version, index === 0)));
    more.hidden = !hasMore;
    fillChoices();
    drawDiff();
  };
  const reload = async (message: string) => {
    versions.length = 0;
    fromSelect.value = '';
    toSelect.value = '';
    try {
      await readPage();
      draw();
      say(restoreStatus, message, 'ok');
      heading.focus();
    } catch (error) {
      if (!signal.aborted) say(restoreStatus, describeError(error, 'read on ai.agent'));
    }
  };
  more.addEventListener('click', () => {
    more.disabled = true;
    readPage()
      .then(draw)
      .catch((error: unknown) => say(status, describeError(error, 'read on ai.agent')))
      .finally(() => (more.disabled = false));
  });
  fromSelect.addEventListener('change', drawDiff);
  toSelect.addEventListener('change', drawDiff);

  root.append(
    card(
      'versions-compare',
      'Compare two versions',
      el(
        'div',
        { class: 'controls' },
        el('div', { class: 'field' }, el('label', { for: 'version-from' }, 'Older side'), fromSelect),
        el('div', { class: 'field' }, el('label', { for: 'version-to' }, 'Newer side'), toSelect),
      ),
      diffSummary,
      diffSlot,
    ),
    card(
      'versions-list',
      'All versions',
      el('p', { class: 'note' }, 'Every change of the definition, newest first. Restoring a version records it again as the newest.'),
      restoreStatus,
      list,
      el('div', { class: 'actions' }, more),
    ),
  );
  draw();
}
