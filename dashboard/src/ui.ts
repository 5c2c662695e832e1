/** Small DOM pieces the console's pages share (built with `el`, never HTML strings). */
import { ApiError } from './api.ts';
import { el } from './format.ts';
import { retryText } from './retry.ts';

/** What a failed call means to a person; 403 names the grant that is missing when known. */
export function describeError(error: unknown, grant?: string): string {
  if (!(error instanceof ApiError)) return `Something went wrong: ${error instanceof Error ? error.message : String(error)}`;
  if (error.status === 403) return grant ? `Your account lacks the ${grant} grant this needs.` : 'Your account may not do this.';
  if (error.status === 429) return `Too many requests. ${retryText(error)}`;
  if (error.status === 404) return 'Not found: it may have been removed.';
  return error.message;
}

/** A status line the page writes to; screen readers hear each change. */
export function statusLine(id: string): HTMLParagraphElement {
  return el('p', { id, class: 'status', role: 'status', 'aria-live': 'polite' });
}

/** Shows `message` in `line` as an error (or clears it with ''). */
export function say(line: HTMLElement, message: string, kind: 'error' | 'ok' = 'error'): void {
  line.textContent = message;
  line.classList.toggle('error', kind === 'error' && message !== '');
}

/** A card section with a heading, labelled by it. */
export function card(id: string, title: string, ...children: (Node | string)[]): HTMLElement {
  return el('section', { class: 'card', id, 'aria-labelledby': `${id}-title` }, el('h2', { id: `${id}-title` }, title), ...children);
}

/** A labelled input in a `.field` block. */
export function field(
  id: string,
  label: string,
  attributes: Record<string, string> = {},
  help?: string,
): { block: HTMLElement; input: HTMLInputElement } {
  const input = el('input', { id, name: id, ...(help ? { 'aria-describedby': `${id}-help` } : {}), ...attributes });
  const block = el('div', { class: 'field' }, el('label', { for: id }, label), input);
  if (help) block.append(el('p', { id: `${id}-help`, class: 'note' }, help));
  return { block, input };
}

/** A page heading that takes the focus, so keyboard and screen-reader users land on the new page. */
export function pageHeading(text: string): HTMLHeadingElement {
  const heading = el('h2', { class: 'page-title', tabindex: '-1' }, text);
  queueMicrotask(() => heading.focus());
  return heading;
}

let notice = '';

/** A message for the next page to show in its status line (an agent archived, before the list opens). */
export function leaveNotice(message: string): void {
  notice = message;
}

/** The message left for this page, once. */
export function takeNotice(): string {
  const message = notice;
  notice = '';
  return message;
}
