/**
 * Pieces of the website chat and guardrails forms: an error shown at its field, a 400's issues
 * sent to the fields they name, and a block of text to copy (a snippet, a secret, a recipe).
 */
import { ApiError } from '../api.ts';
import { el } from '../format.ts';

export type ErrorSlot = { show(message: string): void; clear(): void; shown(): boolean; focus(): void };

/** An error line under `control` in `block`, named by the control's `aria-describedby`. */
export function errorSlot(control: HTMLElement, block: HTMLElement): ErrorSlot {
  const line = el('p', { class: 'error field-error', id: `${control.id}-error` });
  line.hidden = true;
  block.append(line);
  const described = control.getAttribute('aria-describedby');
  control.setAttribute('aria-describedby', described ? `${described} ${line.id}` : line.id);
  return {
    show(message) {
      line.textContent = message;
      line.hidden = false;
      control.setAttribute('aria-invalid', 'true');
    },
    clear() {
      line.textContent = '';
      line.hidden = true;
      control.removeAttribute('aria-invalid');
    },
    shown: () => !line.hidden,
    focus: () => control.focus(),
  };
}

/**
 * Gives each issue of a 400 to `place` with its path below `prefix` (`['allowedOrigins', '2']`);
 * `place` answers whether a field took it. Answers whether every issue found its field.
 */
export function placeIssues(error: unknown, prefix: string[], place: (path: string[], message: string) => boolean): boolean {
  const issues = error instanceof ApiError ? error.issues : [];
  let placed = issues.length > 0;
  for (const issue of issues) {
    const below = prefix.every((part, index) => issue.path[index] === part);
    if (!below || !place(issue.path.slice(prefix.length), issue.message)) placed = false;
  }
  return placed;
}

/** The error code of a coded error answer (`AI.MODEL_NOT_AVAILABLE`), if any. */
export const errorCodeOf = (error: unknown): string | undefined =>
  error instanceof ApiError ? ((error.body as { errorCode?: string } | undefined)?.errorCode ?? undefined) : undefined;

/**
 * Text shown as code with a Copy button beside it: `label` names the block (its heading or the
 * button's accessible name says what is copied). The text wraps, so a phone shows it whole.
 */
export function copyBlock(id: string, label: string, text: string): { block: HTMLElement; set(text: string): void } {
  const code = el('code', { id: `${id}-text` }, text);
  const copy = el('button', { type: 'button', id: `${id}-copy`, 'aria-label': `Copy ${label}` }, 'Copy');
  const copied = el('span', { class: 'note', role: 'status', id: `${id}-copied` });
  let current = text;
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(current).then(
      () => (copied.textContent = 'Copied.'),
      () => {
        const range = document.createRange();
        range.selectNodeContents(code);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
        copied.textContent = 'Could not copy: the text is selected, press Ctrl+C.';
      },
    );
  });
  const block = el('div', { class: 'copy-block', id }, el('pre', {}, code), el('div', { class: 'inline' }, copy, copied));
  return {
    block,
    set(next) {
      current = next;
      code.textContent = next;
      copied.textContent = '';
    },
  };
}
