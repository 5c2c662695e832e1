/**
 * The Clients page's "Copy an agent into a workspace" (`POST /api/ai/agents/:agentId/copies`): one
 * of the agency's agents into one of its businesses, acting in the agency.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import type { api } from '../authed.ts';
import { el } from '../format.ts';
import { describeError, say } from '../ui.ts';

type InAgency = <T>(path: string, options?: Parameters<typeof api>[1]) => Promise<T>;

export function copyForm(inAgency: InAgency) {
  const agent = el('select', { id: 'copy-agent-id', name: 'copy-agent-id' });
  const target = el('select', { id: 'copy-target', name: 'copy-target' });
  const submit = el('button', { type: 'submit' }, 'Copy the agent');
  const form = el(
    'form',
    { id: 'copy-form', novalidate: '', 'aria-label': 'Copy an agent into a workspace' },
    el('div', { class: 'field' }, el('label', { for: 'copy-agent-id' }, "The agency's agent"), agent),
    el('div', { class: 'field' }, el('label', { for: 'copy-target' }, 'Into the workspace'), target),
    el(
      'p',
      { class: 'note' },
      'Copies its definition and tool permissions; not its documents, MCP credentials, website chat or conversations.',
    ),
    el('div', { class: 'actions' }, submit),
  );
  const said = el('p', { id: 'copy-said', role: 'status', 'aria-live': 'polite' });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!agent.value || !target.value) return say(said, 'Choose an agent and a workspace.');
    const into = target.selectedOptions[0]?.textContent ?? 'the workspace';
    submit.disabled = true;
    inAgency<{ id: string; name: string }>(`/api/ai/agents/${agent.value}/copies`, {
      method: 'POST',
      body: { organizationId: target.value },
    })
      .then((copied) => say(said, `${copied.name} was copied into ${into}.`, 'ok'))
      .catch((error: unknown) => say(said, describeError(error, 'create on ai.agent')))
      .finally(() => {
        submit.disabled = false;
      });
  });
  return {
    form,
    said,
    setTargets(businesses: { id: string; name: string }[]) {
      target.replaceChildren(...businesses.map((business) => el('option', { value: business.id }, business.name)));
    },
    async loadAgents() {
      try {
        const { agents } = await inAgency<ApiResponse<'GET /ai/agents'>>('/api/ai/agents');
        agent.replaceChildren(...agents.map((a) => el('option', { value: a.id }, a.name)));
      } catch (error) {
        say(said, describeError(error, 'read on ai.agent'));
      }
    },
  };
}
