/** The report settings form: window, time zone, source, granularity and stacking. */
import type { Action, GroupBy, Granularity, Source } from './types.ts';
import { localIsoDate, type Range } from './window.ts';
import { browserTimeZone, knownTimeZones } from './zones.ts';

export type Settings = {
  range: Range;
  customFrom: string;
  customTo: string;
  timeZone: string;
  source: Source;
  granularity: Granularity;
  groupBy: GroupBy;
  /** '' for every action. */
  action: Action | '';
};

/** Every action type of usage, named for people (typed by the API's filter, so a new type fails the typecheck). */
const ACTIONS: Record<Action, string> = {
  user_interaction: 'Chat turns (user interaction)',
  guardrail_check: 'Guardrail checks',
  title_generation: 'Conversation titles',
  rag_query_embedding: 'Search query embeddings',
  document_indexing: 'Document indexing',
};

const byId = <T extends HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

export class Controls {
  readonly form = byId<HTMLFormElement>('controls');
  readonly #range = byId<HTMLSelectElement>('range');
  readonly #customFrom = byId<HTMLInputElement>('custom-from');
  readonly #customTo = byId<HTMLInputElement>('custom-to');
  readonly #timeZone = byId<HTMLSelectElement>('timezone');
  readonly #source = byId<HTMLSelectElement>('source');
  readonly #granularity = byId<HTMLSelectElement>('granularity');
  readonly #groupBy = byId<HTMLSelectElement>('group-by');
  readonly #action = byId<HTMLSelectElement>('action');

  constructor(onChange: () => void) {
    const own = browserTimeZone();
    const options = knownTimeZones().map((zone) => new Option(zone === own ? `${zone} (this device)` : zone, zone, false, zone === own));
    this.#timeZone.replaceChildren(...options);
    this.#action.replaceChildren(
      new Option('All actions', '', true, true),
      ...Object.entries(ACTIONS).map(([value, label]) => new Option(label, value)),
    );
    const today = localIsoDate(new Date(), own);
    this.#customTo.value = today;
    this.#customFrom.value = localIsoDate(new Date(Date.now() - 13 * 86_400_000), own);
    this.#customTo.max = today;
    this.form.addEventListener('submit', (event) => event.preventDefault());
    this.form.addEventListener('change', () => {
      this.#showCustom();
      onChange();
    });
    this.#showCustom();
  }

  #showCustom(): void {
    const custom = this.#range.value === 'custom';
    for (const field of this.form.querySelectorAll<HTMLElement>('[data-custom]')) field.hidden = !custom;
  }

  get settings(): Settings {
    return {
      range: this.#range.value as Range,
      customFrom: this.#customFrom.value,
      customTo: this.#customTo.value,
      timeZone: this.#timeZone.value,
      source: this.#source.value as Source,
      granularity: this.#granularity.value as Granularity,
      groupBy: this.#groupBy.value as GroupBy,
      action: this.#action.value as Action | '',
    };
  }
}
