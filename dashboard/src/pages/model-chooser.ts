/**
 * The model field of an agent's forms (the agent page, Create agent): a select of the models the
 * platform prices (`GET /api/ai/models`), or free text with them as suggestions when the
 * organization's own provider key lets its agents name any model.
 */
import { el } from '../format.ts';
import type { ModelCatalog } from '../console-types.ts';
import { field } from '../ui.ts';

const DEFAULT_MODEL = '';
const price = (usd: number) => `$${usd}`;

/** The field (`id` names its control) and its value: null for the platform's default model. */
export function modelChooser(id: string, catalog: ModelCatalog, current: string | null): { block: HTMLElement; value(): string | null } {
  if (catalog.anyModel) {
    const options = el('datalist', { id: `${id}-options` }, ...catalog.models.map((model) => el('option', { value: model.modelId })));
    const input = field(
      id,
      'Model',
      { list: `${id}-options`, value: current ?? '', placeholder: "The platform's default model", autocomplete: 'off' },
      "Your organization's own provider key is set: any model id it serves; empty for the default.",
    );
    input.block.append(options);
    return { block: input.block, value: () => input.input.value.trim() || null };
  }
  const select = el(
    'select',
    { id, name: id, 'aria-describedby': `${id}-help` },
    el('option', { value: DEFAULT_MODEL }, "The platform's default model"),
    ...catalog.models.map((model) =>
      el(
        'option',
        { value: model.modelId },
        `${model.modelId} (in ${price(model.inputUsdPerMTok)} / out ${price(model.outputUsdPerMTok)} per million tokens)`,
      ),
    ),
  );
  // A model that is no longer priced stays visible, so saving other fields does not change it silently.
  if (current !== null && !catalog.models.some((model) => model.modelId === current))
    select.append(el('option', { value: current }, `${current} (not available on the platform's key)`));
  select.value = current ?? DEFAULT_MODEL;
  const block = el(
    'div',
    { class: 'field' },
    el('label', { for: id }, 'Model'),
    select,
    el(
      'p',
      { id: `${id}-help`, class: 'note' },
      "The models the platform prices. Add your organization's own provider key (Settings) to use any model.",
    ),
  );
  return { block, value: () => select.value || null };
}
