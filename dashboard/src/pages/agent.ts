/**
 * One agent's definition: its instructions (the system message, verbatim), its model (one of
 * `GET /api/ai/models`, or any id with the organization's own provider key), temperature and
 * output limit. Saved with `PATCH /api/ai/agents/:agentId` (`update` on `ai.agent`), after a
 * passing test run of the draft when the person asks for it (`agent-gate.ts`). The draft is kept
 * in the tab (`agent-draft.ts`), so the Tests page can run it and a reload shows it again.
 * Archived from here too (`agent-archive.ts`).
 */
import { apiLimits } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import type { Agent, ModelCatalog } from '../console-types.ts';
import { clearDraft, readDraft, sameFields, type DraftFields } from '../agent-draft.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { archiveCard } from './agent-archive.ts';
import { conversationsCard } from './agent-conversations.ts';
import { testBeforeSaving } from './agent-gate.ts';
import { guardrailsCard } from './agent-guardrails.ts';
import { errorCodeOf } from './form-parts.ts';
import { modelChooser } from './model-chooser.ts';

const LIMITS = apiLimits['PATCH /ai/agents/:agentId'].body;

/** A number field's value: null when empty, else the number (NaN when not one). */
const numberOf = (input: HTMLInputElement) => (input.value.trim() === '' ? null : Number(input.value));

const savedFields = (agent: Agent): DraftFields => ({
  instructions: agent.instructions,
  modelId: agent.modelId,
  temperature: agent.temperature,
  maxOutputTokens: agent.maxOutputTokens,
});

/** What `reason` of a 409 AI.EVALUATION_NOT_PASSED means (docs/evaluations.md, "The gate"). */
const NOT_PASSED: Record<string, string> = {
  not_found: 'the test run was not found',
  running: 'the test run has not ended',
  failed: 'the test run did not pass',
  other_definition: 'the agent changed since the run: its definition is no longer the one tested',
};

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
  let base = agent.updatedAt;
  // A draft of this tab, begun on the agent as it is now, comes back into the form.
  const stored = readDraft(agent.id, base);
  const draft = stored && !sameFields(stored.fields, savedFields(agent)) ? stored.fields : undefined;
  const start = draft ?? savedFields(agent);
  const instructions = el(
    'textarea',
    {
      id: 'agent-instructions',
      name: 'agent-instructions',
      rows: '16',
      maxlength: String(LIMITS.instructions.maxLength),
      'aria-describedby': 'agent-instructions-help',
    },
    start.instructions ?? '',
  );
  const model = modelChooser('agent-model', catalog, start.modelId ?? null);
  const temperature = field(
    'agent-temperature',
    'Temperature',
    {
      type: 'number',
      min: String(LIMITS.temperature.minimum),
      max: String(LIMITS.temperature.maximum),
      step: '0.1',
      inputmode: 'decimal',
      value: start.temperature == null ? '' : String(start.temperature),
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
      value: start.maxOutputTokens == null ? '' : String(start.maxOutputTokens),
    },
    "Most tokens one model call may write, 1 to 128000; empty for the provider's default.",
  );
  const save = el('button', { type: 'submit' }, 'Save agent');
  const saved = statusLine('agent-save-status');
  /** The form's fields, or why they cannot be sent. */
  const read = (): DraftFields | string => {
    const temperatureValue = numberOf(temperature.input);
    const maxOutputValue = numberOf(maxOutput.input);
    if (temperatureValue !== null && !(temperatureValue >= 0 && temperatureValue <= 2)) return 'Temperature must be from 0 to 2, or empty.';
    if (maxOutputValue !== null && !(Number.isInteger(maxOutputValue) && maxOutputValue >= 1 && maxOutputValue <= 128_000))
      return 'The output limit must be a whole number from 1 to 128000, or empty.';
    return { instructions: instructions.value, modelId: model.value(), temperature: temperatureValue, maxOutputTokens: maxOutputValue };
  };
  const gate = testBeforeSaving({ agent, read, base: () => base, save, signal });
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
    gate.block,
    el('div', { class: 'actions' }, save),
    gate.note,
    saved,
  );
  if (draft) say(saved, 'Your unsaved draft from this tab is shown. Save it, or reload the saved definition.', 'ok');
  form.addEventListener('input', () => gate.update());
  form.addEventListener('change', () => gate.update());
  gate.update();
  root.append(
    card('agent-definition', agent.name, agent.description ? el('p', { class: 'note' }, agent.description) : '', form),
    guardrailsCard(agent, catalog),
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agent.id}/chat` }, `Chat with ${agent.name}`),
      el('a', { href: `#/agents/${agent.id}/documents` }, `Documents of ${agent.name}`),
      el('a', { href: `#/agents/${agent.id}/versions` }, `Versions of ${agent.name}`),
      el('a', { href: `#/agents/${agent.id}/tests` }, `Tests of ${agent.name}`),
      el('a', { href: '#/approvals' }, 'Approvals'),
    ),
    conversationsCard(agent.id, signal),
    archiveCard(agent),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields = read();
    if (typeof fields === 'string') return say(saved, fields);
    const evaluationRunId = gate.runIdFor(fields);
    if (save.disabled) return;
    save.disabled = true;
    say(saved, 'Saving…', 'ok');
    api<Agent>(`/api/ai/agents/${agent.id}`, { method: 'PATCH', body: { ...fields, ...(evaluationRunId ? { evaluationRunId } : {}) } })
      .then((answer) => {
        base = answer.updatedAt;
        clearDraft(agent.id);
        say(saved, evaluationRunId ? 'Saved: the tested draft is the agent’s definition now.' : 'Saved.', 'ok');
      })
      .catch((error: unknown) => {
        const reason = (error as { body?: { metadata?: { reason?: string } } }).body?.metadata?.reason;
        if (errorCodeOf(error) === 'AI.EVALUATION_NOT_PASSED') {
          // The run no longer unlocks this draft: the next save needs a new one.
          clearDraft(agent.id);
          say(saved, `Not saved: ${NOT_PASSED[reason ?? ''] ?? 'the test run does not cover this change'}. Test the draft again.`);
        } else say(saved, describeError(error, 'update on ai.agent'));
      })
      .finally(() => gate.update());
  });
}
