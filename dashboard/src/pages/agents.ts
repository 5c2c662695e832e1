/** The organization's agents, each with links to its chat, tool permissions and MCP servers; and Create agent. */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { ModelCatalog } from '../console-types.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { describeError, pageHeading, say, statusLine, takeNotice } from '../ui.ts';
import { show } from '../views.ts';
import { createAgentCard } from './agent-create.ts';

type Agent = ApiResponse<'GET /ai/agents'>['agents'][number];

function agentItem(agent: Agent): HTMLElement {
  const base = `#/agents/${agent.id}`;
  return el(
    'li',
    { class: 'card agent', 'data-agent-id': agent.id },
    el('h3', {}, agent.name),
    agent.description ? el('p', { class: 'note' }, agent.description) : '',
    el(
      'p',
      { class: 'links' },
      el('a', { href: `${base}/chat`, 'aria-label': `Chat with ${agent.name}` }, 'Chat'),
      el('a', { href: base, 'aria-label': `Instructions and model of ${agent.name}` }, 'Instructions and model'),
      el('a', { href: `${base}/tools`, 'aria-label': `Tool permissions of ${agent.name}` }, 'Tool permissions'),
      el('a', { href: `${base}/mcp-servers`, 'aria-label': `MCP servers of ${agent.name}` }, 'MCP servers'),
      el('a', { href: `${base}/website-chat`, 'aria-label': `Website chat of ${agent.name}` }, 'Website chat'),
      el('a', { href: `${base}/documents`, 'aria-label': `Documents of ${agent.name}` }, 'Documents'),
    ),
  );
}

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const status = statusLine('agents-status');
  const list = el('ul', { class: 'agents', id: 'agent-list' });
  root.append(pageHeading('Agents'), status, list);
  const notice = takeNotice();
  status.textContent = notice || 'Loading…';
  const reload = async () => {
    const { agents } = await api<ApiResponse<'GET /ai/agents'>>('/api/ai/agents', { signal });
    list.replaceChildren(...agents.map(agentItem));
    return agents;
  };
  try {
    const [agents, catalog] = await Promise.all([reload(), api<ModelCatalog>('/api/ai/models', { signal })]);
    say(status, notice || (agents.length === 0 ? 'No agents yet.' : ''), 'ok');
    root.append(
      createAgentCard(catalog, async () => {
        await reload();
        say(status, '', 'ok');
      }),
    );
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
  }
}
