/**
 * Archive on the agent page: a button that opens a confirmation dialog, then
 * `DELETE /api/ai/agents/:agentId` (`update` on `ai.agent`). The agent leaves the list and stops
 * answering; its conversations, documents and usage are kept (docs/agents-and-tools.md).
 */
import { api } from '../authed.ts';
import { el } from '../format.ts';
import type { Agent } from '../console-types.ts';
import { confirmDialog } from '../confirm-dialog.ts';
import { card, leaveNotice, statusLine } from '../ui.ts';

export function archiveCard(agent: Agent): HTMLElement {
  const status = statusLine('agent-archive-status');
  const open = el('button', { type: 'button', class: 'danger', id: 'agent-archive' }, 'Archive agent');
  const dialog = confirmDialog({
    id: 'agent-archive',
    open,
    status,
    title: `Archive ${agent.name}?`,
    text:
      'It leaves the list of agents and stops answering: new chats, its conversations, tools and MCP servers are closed. ' +
      'A chat answer being written finishes. Its conversations, documents and usage are kept, and usage reports still count it.',
    confirmLabel: 'Archive',
    grant: 'update on ai.agent',
    act: () => api(`/api/ai/agents/${agent.id}`, { method: 'DELETE' }),
    done: () => {
      leaveNotice(`${agent.name} was archived.`);
      location.hash = '#/agents';
    },
  });
  return card(
    'agent-archive-card',
    'Archive',
    el(
      'p',
      { class: 'note' },
      'Retire this agent: it stops answering and leaves the list. Its conversations, documents and usage are kept.',
    ),
    el('div', { class: 'actions' }, open),
    status,
    dialog,
  );
}
