/**
 * A list of short texts edited one row at a time (a channel's allowed origins, an agent's blocked
 * terms): each row a labelled input with Remove, then Add. Empty rows are not sent; an error the
 * API names by an index of the sent list is shown at that row.
 */
import { el } from '../format.ts';

export type ListEditor = {
  /** The fieldset to put in a form. */
  block: HTMLElement;
  /** The rows' trimmed values, empty rows left out, in order. */
  values(): string[];
  /** Shows `message` at the row of sent value `index`, or at the list when `index` is undefined. */
  showError(index: number | undefined, message: string): void;
  clearErrors(): void;
  hasError(): boolean;
  /** Focuses the first row that shows an error (or the list's first control). */
  focusError(): void;
  /** Replaces the rows with `items`. */
  set(items: readonly string[]): void;
};

type Options = {
  id: string;
  legend: string;
  /** The accessible name of row `n` (from 1), e.g. "Origin 2". */
  itemName: (n: number) => string;
  addLabel: string;
  help: string;
  maxItems: number;
  itemMaxLength: number;
  placeholder?: string;
  inputAttributes?: Record<string, string>;
};

type Row = { element: HTMLLIElement; input: HTMLInputElement; remove: HTMLButtonElement; error: HTMLParagraphElement };

export function listEditor(options: Options, items: readonly string[]): ListEditor {
  const { id, maxItems } = options;
  const list = el('ul', { class: 'list-editor-rows', id: `${id}-rows` });
  const add = el('button', { type: 'button', id: `${id}-add` }, options.addLabel);
  const count = el('p', { class: 'note', id: `${id}-count` });
  const listError = el('p', { class: 'error field-error', id: `${id}-error` });
  listError.hidden = true;
  const block = el(
    'fieldset',
    { class: 'list-editor', id, 'aria-describedby': `${id}-help ${id}-count ${id}-error` },
    el('legend', {}, options.legend),
    el('p', { class: 'note', id: `${id}-help` }, options.help),
    list,
    el('div', { class: 'actions' }, add),
    count,
    listError,
  );
  let rows: Row[] = [];
  let serial = 0;

  const renumber = () => {
    rows.forEach((row, index) => {
      const name = options.itemName(index + 1);
      row.input.setAttribute('aria-label', name);
      row.remove.setAttribute('aria-label', `Remove ${name}`);
    });
    add.disabled = rows.length >= maxItems;
    count.textContent = `${rows.length} of at most ${maxItems}${rows.length >= maxItems ? ': remove one to add another.' : '.'}`;
  };

  const addRow = (value: string): Row => {
    const key = `${id}-${serial++}`;
    const input = el('input', {
      id: key,
      name: key,
      type: 'text',
      maxlength: String(options.itemMaxLength),
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': `${key}-error`,
      ...(options.placeholder ? { placeholder: options.placeholder } : {}),
      ...options.inputAttributes,
    });
    input.value = value;
    const remove = el('button', { type: 'button', class: 'danger' }, 'Remove');
    const error = el('p', { class: 'error field-error', id: `${key}-error` });
    error.hidden = true;
    const row: Row = { element: el('li', {}, el('div', { class: 'inline' }, input, remove), error), input, remove, error };
    remove.addEventListener('click', () => {
      const at = rows.indexOf(row);
      rows.splice(at, 1);
      row.element.remove();
      renumber();
      // The focus goes to the row that took its place, else the one before, else Add.
      (rows[at]?.input ?? rows[at - 1]?.input ?? add).focus();
    });
    rows.push(row);
    list.append(row.element);
    return row;
  };

  const set = (values: readonly string[]) => {
    rows = [];
    list.replaceChildren();
    for (const value of values) addRow(value);
    renumber();
  };

  add.addEventListener('click', () => {
    if (rows.length >= maxItems) return;
    const row = addRow('');
    renumber();
    row.input.focus();
  });

  /** The rows whose values are sent, in the order `values()` gives them. */
  const sentRows = () => rows.filter((row) => row.input.value.trim() !== '');

  set(items);
  return {
    block,
    values: () => sentRows().map((row) => row.input.value.trim()),
    showError(index, message) {
      const row = index === undefined ? undefined : sentRows()[index];
      const target = row?.error ?? listError;
      target.textContent = message;
      target.hidden = false;
      (row?.input ?? block).setAttribute('aria-invalid', 'true');
    },
    clearErrors() {
      for (const target of [listError, ...rows.map((row) => row.error)]) {
        target.textContent = '';
        target.hidden = true;
      }
      block.removeAttribute('aria-invalid');
      for (const row of rows) row.input.removeAttribute('aria-invalid');
    },
    hasError: () => !listError.hidden || rows.some((row) => !row.error.hidden),
    focusError() {
      (rows.find((row) => !row.error.hidden)?.input ?? rows[0]?.input ?? add).focus();
    },
    set,
  };
}
