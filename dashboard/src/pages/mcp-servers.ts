/**
 * An agent's MCP servers: status and last check, rename, remove, connect (OAuth), and a form to
 * add one from the catalog (`mcp-add.ts`).
 */
import { apiLimits } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { McpServer } from '../console-types.ts';
import { el } from '../format.ts';
import { connectOAuth } from '../mcp-oauth-connect.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { renderAddForm } from './mcp-add.ts';

const STATUS_TEXT: Record<McpServer['status'], string> = {
  connected: 'Connected',
  needs_authorization: 'Needs authorization',
  reauthorization_required: 'Needs authorization again',
  unreachable: 'Unreachable',
  unknown: 'Not checked yet',
};

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const agentId = params[0] ?? '';
  const base = `/api/ai/agents/${agentId}/mcp-servers`;
  const status = statusLine('servers-status');
  const list = el('ul', { class: 'servers', id: 'server-list' });
  const addCard = card('add-server', 'Add a server from the catalog');
  root.append(
    pageHeading('MCP servers'),
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agentId}/tools` }, 'Tool permissions'),
      el('a', { href: `#/agents/${agentId}/chat` }, 'Chat'),
    ),
    status,
    list,
    addCard,
  );

  const reload = async () => {
    say(status, 'Loading…', 'ok');
    try {
      const servers = await api<McpServer[]>(base, { signal });
      list.replaceChildren(...servers.map((server) => serverItem(server, base, agentId, status, reload)));
      say(status, servers.length === 0 ? 'No MCP servers yet.' : '', 'ok');
    } catch (error) {
      if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    }
  };
  await reload();
  await renderAddForm(addCard, base, signal, reload);
}

function serverItem(server: McpServer, base: string, agentId: string, status: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const id = `server-${server.id}`;
  const rename = el('input', {
    id: `${id}-name`,
    value: server.name,
    maxlength: String(apiLimits['PATCH /ai/agents/:agentId/mcp-servers/:serverId'].body.name.maxLength),
    required: '',
  });
  const renameForm = el(
    'form',
    { class: 'inline', 'aria-label': `Rename ${server.name}` },
    el('label', { for: `${id}-name` }, 'Name'),
    rename,
    el('button', { type: 'submit', 'aria-label': `Rename ${server.name}` }, 'Rename'),
  );
  renameForm.addEventListener('submit', (event) => {
    event.preventDefault();
    api(`${base}/${server.id}`, { method: 'PATCH', body: { name: rename.value.trim() } })
      .then(reload)
      .catch((error: unknown) => say(status, describeError(error, 'update on ai.agent')));
  });
  const remove = el('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${server.name}` }, 'Remove');
  remove.addEventListener('click', () => {
    remove.disabled = true;
    api(`${base}/${server.id}`, { method: 'DELETE' })
      .then(reload)
      .catch((error: unknown) => {
        remove.disabled = false;
        say(status, describeError(error, 'update on ai.agent'));
      });
  });
  const actions = el('p', { class: 'actions' }, remove);
  if (server.authType === 'oauth' && server.status !== 'connected') {
    const connect = el('button', { type: 'button', 'aria-label': `Connect ${server.name}` }, 'Connect');
    connect.addEventListener('click', () => {
      connect.disabled = true;
      connectOAuth(agentId, server.id).catch((error: unknown) => {
        connect.disabled = false;
        say(status, describeError(error, 'update on ai.agent'));
      });
    });
    actions.prepend(connect);
  }
  return el(
    'li',
    { class: 'card server', id, 'data-server-id': server.id, 'data-status': server.status },
    el('h3', {}, server.name),
    el(
      'dl',
      { class: 'facts' },
      el('dt', {}, 'Status'),
      el('dd', { class: 'server-status' }, STATUS_TEXT[server.status] ?? server.status),
      el('dt', {}, 'Last check'),
      el('dd', {}, server.lastCheckedAt ? dateTime.format(new Date(server.lastCheckedAt)) : 'never'),
      el('dt', {}, 'Address'),
      el('dd', { class: 'url' }, server.url),
      el('dt', {}, 'Sign-in'),
      el('dd', {}, server.authType === 'oauth' ? 'OAuth' : server.authType === 'static_headers' ? 'API key' : 'None'),
    ),
    renameForm,
    actions,
  );
}
