/**
 * Archive on the agent page: a button that opens a confirmation dialog, then
 * `DELETE /api/ai/agents/:agentId` (`update` on `ai.agent`). The agent leaves the list and stops
 * answering; its conversations, documents and usage are kept (docs/agents-and-tools.md).
 */
import { api } from '../authed.ts';
import { el } from '../format.ts';
import type { Agent } from '../console-types.ts';
import { card, describeError, leaveNotice, say, statusLine } from '../ui.ts';

export function archiveCard(agent: Agent): HTMLElement {
  const status = statusLine('agent-archive-status');
  const open = el('button', { type: 'button', class: 'danger', id: 'agent-archive' }, 'Archive agent');
  const confirm = el('button', { type: 'button', class: 'danger', id: 'agent-archive-confirm' }, 'Archive');
  const cancel = el('button', { type: 'button', id: 'agent-archive-cancel' }, 'Cancel');
  const dialog = el(
    'dialog',
    { id: 'agent-archive-dialog', 'aria-labelledby': 'agent-archive-dialog-title', 'aria-describedby': 'agent-archive-dialog-text' },
    el('h2', { id: 'agent-archive-dialog-title' }, `Archive ${agent.name}?`),
    el(
      'p',
      { id: 'agent-archive-dialog-text' },
      'It leaves the list of agents and stops answering: new chats, its conversations, tools and MCP servers are closed. ' +
        'A chat answer being written finishes. Its conversations, documents and usage are kept, and usage reports still count it.',
    ),
    el('div', { class: 'actions' }, cancel, confirm),
  );
  // The safe choice has the focus when the dialog opens; Escape closes it like Cancel.
  open.addEventListener('click', () => {
    say(status, '', 'ok');
    dialog.showModal();
    cancel.focus();
  });
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    if (dialog.returnValue !== 'archived') open.focus();
  });
  confirm.addEventListener('click', () => {
    confirm.disabled = true;
    cancel.disabled = true;
    api(`/api/ai/agents/${agent.id}`, { method: 'DELETE' })
      .then(() => {
        dialog.close('archived');
        leaveNotice(`${agent.name} was archived.`);
        location.hash = '#/agents';
      })
      .catch((error: unknown) => {
        dialog.close();
        say(status, describeError(error, 'update on ai.agent'));
      })
      .finally(() => {
        confirm.disabled = false;
        cancel.disabled = false;
      });
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
