/**
 * Create agent, on the agents page: name, description, model and instructions, the fields
 * `POST /api/ai/agents` takes (`create` on `ai.agent`; at most `AGENTS_PER_ORGANIZATION` agents
 * in use, then 409 `AI.AGENT_LIMIT_REACHED`, whose message is shown).
 */
import { apiLimits, type ApiResponse } from '../api-types.generated.ts';
import { ApiError } from '../api.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import type { ModelCatalog } from '../console-types.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';
import { modelChooser } from './model-chooser.ts';

type Created = ApiResponse<'POST /ai/agents'>;

const LIMITS = apiLimits['POST /ai/agents'].body;

/** The form's card; `created` runs with each new agent (the page lists it). */
export function createAgentCard(catalog: ModelCatalog, created: (agent: Created) => Promise<void>): HTMLElement {
  const status = statusLine('agent-create-status');
  const name = field(
    'new-agent-name',
    'Name',
    { maxlength: String(LIMITS.name.maxLength), required: '', autocomplete: 'off' },
    `One line, up to ${LIMITS.name.maxLength} characters.`,
  );
  const description = el('textarea', {
    id: 'new-agent-description',
    name: 'new-agent-description',
    rows: '2',
    maxlength: String(LIMITS.description.maxLength),
    'aria-describedby': 'new-agent-description-help',
  });
  const instructions = el('textarea', {
    id: 'new-agent-instructions',
    name: 'new-agent-instructions',
    rows: '6',
    maxlength: String(LIMITS.instructions.maxLength),
    'aria-describedby': 'new-agent-instructions-help',
  });
  const model = modelChooser('new-agent-model', catalog, null);
  const submit = el('button', { type: 'submit' }, 'Create agent');
  const form = el(
    'form',
    { id: 'agent-create-form', novalidate: '', 'aria-label': 'Create an agent' },
    name.block,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'new-agent-description' }, 'Description'),
      description,
      el(
        'p',
        { id: 'new-agent-description-help', class: 'note' },
        `Optional: what the agent is for, up to ${LIMITS.description.maxLength} characters.`,
      ),
    ),
    model.block,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'new-agent-instructions' }, 'Instructions'),
      instructions,
      el(
        'p',
        { id: 'new-agent-instructions-help', class: 'note' },
        `Optional: the system message, word for word (what the agent does, its tone, its rules). At most ${LIMITS.instructions.maxLength} characters.`,
      ),
    ),
    el('div', { class: 'actions' }, submit),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = name.input.value.trim();
    if (!chosen) {
      name.input.focus();
      return say(status, 'Give the agent a name.');
    }
    submit.disabled = true;
    const modelId = model.value();
    const body = {
      name: chosen,
      ...(description.value.trim() ? { description: description.value.trim() } : {}),
      ...(modelId ? { modelId } : {}),
      ...(instructions.value ? { instructions: instructions.value } : {}),
    };
    api<Created>('/api/ai/agents', { method: 'POST', body })
      .then(async (agent) => {
        form.reset();
        say(status, `${agent.name} was created.`, 'ok');
        await created(agent);
      })
      .catch((error: unknown) => {
        const limit = error instanceof ApiError && error.status === 409;
        say(status, limit ? error.message : describeError(error, 'create on ai.agent'));
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return card('agent-create', 'Create agent', form);
}
