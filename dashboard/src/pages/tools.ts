/**
 * An agent's tool permissions: every built-in tool of the catalog and every tool its MCP servers
 * list, each with a three-way control. Save sends the whole set in one PUT; a 400 is shown beside
 * the row it names. Below, the caller's own approve-always overrides, each removable.
 */
import { ApiError } from '../api.ts';
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { CatalogTool, McpServer, PermissionStatus, ToolEntry } from '../console-types.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { renderOverrides } from './overrides.ts';

/** A label per level: a `Record`, so a level added on the server (the generated types) fails the dashboard's typecheck here. */
const LABELS: Record<PermissionStatus, string> = { always_allow: 'Always allow', needs_approval: 'Needs approval', blocked: 'Blocked' };
const CHOICES = Object.entries(LABELS) as [PermissionStatus, string][];

type Row = { toolName: string; providerKey: string; description: string; element: HTMLElement; error: HTMLElement; absent: HTMLElement };

const STATUS_TEXT: Record<string, string> = {
  connected: 'connected',
  needs_authorization: 'needs authorization',
  reauthorization_required: 'needs authorization again',
  unreachable: 'unreachable',
  unknown: 'not checked yet',
};

function showStatus(line: HTMLElement, status: string): void {
  line.dataset.status = status;
  line.textContent = `Status: ${STATUS_TEXT[status] ?? status}`;
}

type Shown = {
  toolName: string;
  providerKey: string;
  description: string;
  available?: boolean;
  unavailableReason?: string | null;
  suggestedPermission?: PermissionStatus;
};

function toolRow(tool: Shown, current: PermissionStatus | undefined, index: number): Row {
  const id = `tool-${index}`;
  const error = el('p', { id: `${id}-error`, class: 'error row-error', role: 'alert' });
  error.hidden = true;
  const suggested = tool.suggestedPermission
    ? ` Suggested: ${CHOICES.find(([value]) => value === tool.suggestedPermission)?.[1] ?? ''}.`
    : '';
  const absent = el('p', { class: 'note' }, `Not in the set: the agent does not offer it.${suggested}`);
  absent.hidden = current !== undefined;
  // A tool this deployment does not run is never offered to the model, whatever its level.
  const unavailable =
    tool.available === false
      ? el(
          'p',
          { class: 'note warn tool-unavailable', role: 'note' },
          `Unavailable here: ${tool.unavailableReason ?? 'this deployment does not run it'}. The agent is not offered it.`,
        )
      : '';
  const options = CHOICES.map(([value, label]) => {
    const radio = el('input', { type: 'radio', name: id, value, id: `${id}-${value}` });
    radio.checked = current === value;
    return el('label', { for: `${id}-${value}`, class: 'choice' }, radio, ` ${label}`);
  });
  const element = el(
    'fieldset',
    {
      class: 'tool-row',
      'data-tool': tool.toolName,
      'data-provider': tool.providerKey,
      'data-available': String(tool.available !== false),
      'aria-describedby': `${id}-error`,
    },
    el('legend', {}, el('code', {}, tool.toolName)),
    tool.description ? el('p', { class: 'note' }, tool.description) : '',
    unavailable,
    absent,
    el('div', { class: 'choices' }, ...options),
    error,
  );
  return { toolName: tool.toolName, providerKey: tool.providerKey, description: tool.description, element, error, absent };
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const agentId = params[0] ?? '';
  const base = `/api/ai/agents/${agentId}`;
  const status = statusLine('tools-status');
  const form = el('form', { id: 'tool-form', 'aria-label': 'Tool permissions', novalidate: '' });
  const overrides = el('div', { id: 'overrides' });
  root.append(
    pageHeading('Tool permissions'),
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agentId}/mcp-servers` }, 'MCP servers'),
      el('a', { href: `#/agents/${agentId}/chat` }, 'Chat'),
    ),
    status,
    form,
    card('overrides-card', 'Your approve-always overrides', overrides),
  );
  status.textContent = 'Loading…';
  let rows: Row[];
  try {
    const [catalog, set, servers] = await Promise.all([
      api<CatalogTool[]>('/api/ai/tools/catalog', { signal }),
      api<ApiResponse<'GET /ai/agents/:agentId/tools'>>(`${base}/tools`, { signal }),
      api<McpServer[]>(`${base}/mcp-servers`, { signal }),
    ]);
    const current = new Map(set.tools.map((tool) => [`${tool.providerKey} ${tool.toolName}`, tool.permissionStatus]));
    const seen = new Set<string>();
    rows = [];
    const add = (parent: HTMLElement, tool: Shown) => {
      const key = `${tool.providerKey} ${tool.toolName}`;
      seen.add(key);
      const row = toolRow(tool, current.get(key), rows.length);
      rows.push(row);
      parent.append(row.element);
    };
    const builtIn = card('built-in', 'Built-in tools');
    for (const tool of catalog) add(builtIn, tool);
    form.append(builtIn);
    for (const server of servers) {
      const section = card(`server-${server.id}`, `MCP server ${server.name}`);
      const state = el(
        'p',
        { class: 'note server-status', 'data-status': server.status },
        `Status: ${STATUS_TEXT[server.status] ?? server.status}`,
      );
      section.append(state);
      form.append(section);
      try {
        const listed = await api<ApiResponse<'GET /ai/agents/:agentId/mcp-servers/:serverId/tools'>>(
          `${base}/mcp-servers/${server.id}/tools`,
          { signal },
        );
        for (const tool of listed.tools)
          add(section, { toolName: tool.name, providerKey: `mcp:${server.id}`, description: tool.description ?? '' });
      } catch (error) {
        state.append(`. Its tools could not be listed: ${describeError(error)}`);
      }
      // Listing talked to the server: show the status that left.
      await api<McpServer>(`${base}/mcp-servers/${server.id}`, { signal })
        .then((checked) => showStatus(state, checked.status))
        .catch(() => undefined);
      // Entries of the set for this server that it no longer lists stay editable.
      for (const tool of set.tools) {
        if (tool.providerKey === `mcp:${server.id}` && !seen.has(`${tool.providerKey} ${tool.toolName}`))
          add(section, { ...tool, description: '' });
      }
    }
    const others = set.tools.filter((tool) => !seen.has(`${tool.providerKey} ${tool.toolName}`));
    if (others.length > 0) {
      const section = card('other-tools', 'Other tools in the set');
      for (const tool of others) add(section, { ...tool, description: '' });
      form.append(section);
    }
    say(status, '', 'ok');
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }

  const save = el('button', { type: 'submit' }, 'Save permissions');
  form.append(el('div', { class: 'actions' }, save));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void saveSet(base, form, rows, status, save);
  });
  await renderOverrides(overrides, base, signal);
}

async function saveSet(base: string, form: HTMLFormElement, rows: Row[], status: HTMLElement, save: HTMLButtonElement): Promise<void> {
  const tools: ToolEntry[] = [];
  const sent: Row[] = [];
  for (const [index, row] of rows.entries()) {
    row.error.hidden = true;
    row.element.removeAttribute('aria-invalid');
    const checked = form.querySelector<HTMLInputElement>(`input[name="tool-${index}"]:checked`);
    if (!checked) continue;
    tools.push({ toolName: row.toolName, providerKey: row.providerKey, permissionStatus: checked.value as PermissionStatus });
    sent.push(row);
  }
  save.disabled = true;
  say(status, 'Saving…', 'ok');
  try {
    await api(`${base}/tools`, { method: 'PUT', body: { tools } });
    for (const row of rows) row.absent.hidden = sent.includes(row);
    say(status, `Saved: ${tools.length} tools in the set.`, 'ok');
  } catch (error) {
    const issues = error instanceof ApiError ? error.issues : [];
    let placed = false;
    for (const issue of issues) {
      const at = issue.path.indexOf('tools');
      const row = at >= 0 ? sent[Number(issue.path[at + 1])] : undefined;
      if (!row) continue;
      row.error.textContent = `${issue.path.slice(at + 2).join('.') || 'this tool'}: ${issue.message}`;
      row.error.hidden = false;
      row.element.setAttribute('aria-invalid', 'true');
      placed = true;
    }
    say(status, placed ? 'Not saved: see the marked tools.' : describeError(error, 'update on ai.agent'));
    sent
      .find((row) => !row.error.hidden)
      ?.element.querySelector('input')
      ?.focus();
  } finally {
    save.disabled = false;
  }
}
