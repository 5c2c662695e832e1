/**
 * Guardrails on the agent page (docs/agents-and-tools.md, "Guardrails"): the blocked terms, the
 * moderation model (a priced model, any model with the organization's own key, or none) and the
 * refusal, saved together with `PATCH /api/ai/agents/:agentId { guardrails }` (`update` on
 * `ai.agent`). A 400 is shown at the field it names, the API's refusal of an unpriced moderation
 * model (`AI.MODEL_NOT_AVAILABLE`) at the model. The limits shown are the API's (`apiLimits`).
 */
import { apiLimits, type ApiBody } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { Agent, ModelCatalog } from '../console-types.ts';
import { el } from '../format.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';
import { errorCodeOf, errorSlot, placeIssues } from './form-parts.ts';
import { listEditor } from './list-editor.ts';

type Guardrails = NonNullable<ApiBody<'PATCH /ai/agents/:agentId'>['guardrails']>;

const LIMITS = apiLimits['PATCH /ai/agents/:agentId'].body;
const NONE = '';

/** The moderation model: a select of the priced models (and None), or free text with the organization's own key. */
function moderationChooser(
  catalog: ModelCatalog,
  current: string | null,
): { block: HTMLElement; control: HTMLElement; value(): string | null } {
  const id = 'guardrails-moderation';
  const help =
    'Checks each new user message before the agent’s model sees it (billed as a guardrail check). ' +
    (catalog.anyModel ? "Your organization's own key is set: any model id it serves; empty for none." : 'The models the platform prices.');
  if (catalog.anyModel) {
    const input = field(
      id,
      'Moderation model',
      {
        list: `${id}-options`,
        value: current ?? '',
        placeholder: 'None',
        autocomplete: 'off',
        maxlength: String(LIMITS['guardrails.moderationModel'].maxLength),
      },
      help,
    );
    input.block.append(el('datalist', { id: `${id}-options` }, ...catalog.models.map((model) => el('option', { value: model.modelId }))));
    return { block: input.block, control: input.input, value: () => input.input.value.trim() || null };
  }
  const select = el(
    'select',
    { id, name: id, 'aria-describedby': `${id}-help` },
    el('option', { value: NONE }, 'None: blocked terms only'),
    ...catalog.models.map((model) => el('option', { value: model.modelId }, model.modelId)),
  );
  // A model no longer priced stays visible, so the page shows what is stored; saving it is refused by the API.
  if (current !== null && !catalog.models.some((model) => model.modelId === current))
    select.append(el('option', { value: current }, `${current} (not available on the platform's key)`));
  select.value = current ?? NONE;
  const block = el(
    'div',
    { class: 'field' },
    el('label', { for: id }, 'Moderation model'),
    select,
    el('p', { id: `${id}-help`, class: 'note' }, help),
  );
  return { block, control: select, value: () => select.value || null };
}

export function guardrailsCard(agent: Agent, catalog: ModelCatalog): HTMLElement {
  const terms = listEditor(
    {
      id: 'guardrails-terms',
      legend: 'Blocked terms',
      itemName: (n) => `Blocked term ${n}`,
      addLabel: 'Add a term',
      help:
        'A message with one of these words or phrases is refused without calling the model: matched as whole words, ' +
        `in any case. Each ${LIMITS['guardrails.blockedTerms[]'].minLength} to ${LIMITS['guardrails.blockedTerms[]'].maxLength} characters.`,
      maxItems: LIMITS['guardrails.blockedTerms'].maxItems,
      itemMaxLength: LIMITS['guardrails.blockedTerms[]'].maxLength,
    },
    agent.guardrails.blockedTerms,
  );
  const moderation = moderationChooser(catalog, agent.guardrails.moderationModel);
  const refusalLimits = LIMITS['guardrails.refusal'];
  const refusal = el(
    'textarea',
    {
      id: 'guardrails-refusal',
      name: 'guardrails-refusal',
      rows: '2',
      maxlength: String(refusalLimits.maxLength),
      'aria-describedby': 'guardrails-refusal-help',
    },
    agent.guardrails.refusal,
  );
  const refusalBlock = el(
    'div',
    { class: 'field' },
    el('label', { for: 'guardrails-refusal' }, 'Refusal'),
    refusal,
    el(
      'p',
      { id: 'guardrails-refusal-help', class: 'note' },
      `The answer to a message a guardrail stops, ${refusalLimits.minLength} to ${refusalLimits.maxLength} characters.`,
    ),
  );
  const moderationError = errorSlot(moderation.control, moderation.block);
  const refusalError = errorSlot(refusal, refusalBlock);
  const save = el('button', { type: 'submit' }, 'Save guardrails');
  const saved = statusLine('guardrails-save-status');
  const form = el(
    'form',
    { id: 'guardrails-form', novalidate: '', 'aria-label': `Guardrails of ${agent.name}` },
    terms.block,
    moderation.block,
    refusalBlock,
    el('div', { class: 'actions' }, save),
    saved,
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    terms.clearErrors();
    moderationError.clear();
    refusalError.clear();
    const guardrails: Guardrails = { blockedTerms: terms.values(), moderationModel: moderation.value(), refusal: refusal.value };
    save.disabled = true;
    say(saved, 'Saving…', 'ok');
    api<Agent>(`/api/ai/agents/${agent.id}`, { method: 'PATCH', body: { guardrails } })
      .then((answer) => {
        terms.set(answer.guardrails.blockedTerms);
        say(saved, 'Saved.', 'ok');
      })
      .catch((error: unknown) => {
        let placed: boolean;
        if (errorCodeOf(error) === 'AI.MODEL_NOT_AVAILABLE') {
          moderationError.show(describeError(error));
          placed = true;
        } else
          placed = placeIssues(error, ['guardrails'], ([name, index], message) => {
            if (name === 'blockedTerms') terms.showError(index === undefined ? undefined : Number(index), message);
            else if (name === 'moderationModel') moderationError.show(message);
            else if (name === 'refusal') refusalError.show(message);
            else return false;
            return true;
          });
        say(saved, placed ? 'Not saved: see the marked fields.' : describeError(error, 'update on ai.agent'));
        // The first marked field in the form's order takes the focus.
        if (terms.hasError()) terms.focusError();
        else if (moderationError.shown()) moderationError.focus();
        else if (refusalError.shown()) refusalError.focus();
      })
      .finally(() => {
        save.disabled = false;
      });
  });
  return card('agent-guardrails', 'Guardrails', form);
}
