/**
 * One agent's definition: its instructions (the system message, verbatim), its model (one of
 * `GET /api/ai/models`, or any id with the organization's own provider key), temperature and
 * output limit. Saved with `PATCH /api/ai/agents/:agentId` (`update` on `ai.agent`). Archived
 * from here too (`agent-archive.ts`).
 */
import { apiLimits } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import type { Agent, ModelCatalog } from '../console-types.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { archiveCard } from './agent-archive.ts';
import { conversationsCard } from './agent-conversations.ts';
import { guardrailsCard } from './agent-guardrails.ts';
import { modelChooser } from './model-chooser.ts';

const LIMITS = apiLimits['PATCH /ai/agents/:agentId'].body;

/** A number field's value: null when empty, else the number (NaN when not one). */
const numberOf = (input: HTMLInputElement) => (input.value.trim() === '' ? null : Number(input.value));

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = ''] = params;
  const status = statusLine('agent-status');
  root.append(pageHeading('Agent'), status);
  status.textContent = 'Loading…';
  let agent: Agent;
  let catalog: ModelCatalog;
  try {
    [agent, catalog] = await Promise.all([
      api<Agent>(`/api/ai/agents/${agentId}`, { signal }),
      api<ModelCatalog>('/api/ai/models', { signal }),
    ]);
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }
  say(status, '', 'ok');
  const instructions = el(
    'textarea',
    {
      id: 'agent-instructions',
      name: 'agent-instructions',
      rows: '16',
      maxlength: String(LIMITS.instructions.maxLength),
      'aria-describedby': 'agent-instructions-help',
    },
    agent.instructions,
  );
  const model = modelChooser('agent-model', catalog, agent.modelId);
  const temperature = field(
    'agent-temperature',
    'Temperature',
    {
      type: 'number',
      min: String(LIMITS.temperature.minimum),
      max: String(LIMITS.temperature.maximum),
      step: '0.1',
      inputmode: 'decimal',
      value: agent.temperature === null ? '' : String(agent.temperature),
    },
    `${LIMITS.temperature.minimum} to ${LIMITS.temperature.maximum}; empty for the provider's default.`,
  );
  const maxOutput = field(
    'agent-max-output-tokens',
    'Output limit (tokens)',
    {
      type: 'number',
      min: String(LIMITS.maxOutputTokens.minimum),
      max: String(LIMITS.maxOutputTokens.maximum),
      step: '1',
      inputmode: 'numeric',
      value: agent.maxOutputTokens === null ? '' : String(agent.maxOutputTokens),
    },
    "Most tokens one model call may write, 1 to 128000; empty for the provider's default.",
  );
  const save = el('button', { type: 'submit' }, 'Save agent');
  const saved = statusLine('agent-save-status');
  const form = el(
    'form',
    { id: 'agent-form', novalidate: '', 'aria-label': `Edit ${agent.name}` },
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'agent-instructions' }, 'Instructions'),
      instructions,
      el(
        'p',
        { id: 'agent-instructions-help', class: 'note' },
        `The system message, word for word: what the agent does, its tone and its rules. At most ${LIMITS.instructions.maxLength} characters.`,
      ),
    ),
    model.block,
    temperature.block,
    maxOutput.block,
    el('div', { class: 'actions' }, save),
    saved,
  );
  root.append(
    card('agent-definition', agent.name, agent.description ? el('p', { class: 'note' }, agent.description) : '', form),
    guardrailsCard(agent, catalog),
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agent.id}/chat` }, `Chat with ${agent.name}`),
      el('a', { href: `#/agents/${agent.id}/documents` }, `Documents of ${agent.name}`),
      el('a', { href: '#/approvals' }, 'Approvals'),
    ),
    conversationsCard(agent.id, signal),
    archiveCard(agent),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const temperatureValue = numberOf(temperature.input);
    const maxOutputValue = numberOf(maxOutput.input);
    if (temperatureValue !== null && !(temperatureValue >= 0 && temperatureValue <= 2))
      return say(saved, 'Temperature must be from 0 to 2, or empty.');
    if (maxOutputValue !== null && !(Number.isInteger(maxOutputValue) && maxOutputValue >= 1 && maxOutputValue <= 128_000))
      return say(saved, 'The output limit must be a whole number from 1 to 128000, or empty.');
    save.disabled = true;
    const body = {
      instructions: instructions.value,
      modelId: model.value(),
      temperature: temperatureValue,
      maxOutputTokens: maxOutputValue,
    };
    api<Agent>(`/api/ai/agents/${agent.id}`, { method: 'PATCH', body })
      .then(() => say(saved, 'Saved.', 'ok'))
      .catch((error: unknown) => say(saved, describeError(error, 'update on ai.agent')))
      .finally(() => {
        save.disabled = false;
      });
  });
}
