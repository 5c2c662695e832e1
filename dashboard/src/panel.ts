/**
 * Every panel has one state at a time, mirrored in `data-state` (loading, ready, empty, error)
 * and `aria-busy`, so assistive technology and the browser tests see the same thing.
 */
import { el } from './format.ts';

export type PanelState = 'loading' | 'ready' | 'empty' | 'error';

export class Panel {
  readonly section: HTMLElement;
  readonly body: HTMLElement;
  #onClear: (() => void) | undefined;

  constructor(id: string) {
    const section = document.getElementById(id);
    const body = section?.querySelector<HTMLElement>('.panel-body');
    if (!section || !body) throw new Error(`panel #${id} is missing`);
    this.section = section;
    this.body = body;
  }

  #set(state: PanelState, ...content: (Node | string)[]): void {
    this.#onClear?.();
    this.#onClear = undefined;
    this.section.dataset.state = state;
    this.section.setAttribute('aria-busy', String(state === 'loading'));
    this.body.replaceChildren(...content);
  }

  loading(): void {
    this.#set('loading', el('p', { class: 'placeholder' }, 'Loading…'));
  }

  empty(message: string): void {
    this.#set('empty', el('p', { class: 'placeholder' }, message));
  }

  error(message: string): void {
    this.#set('error', el('p', { class: 'error' }, message));
  }

  /**
   * Shows `content`, then runs `mount` (which needs the content in the document, to measure it);
   * what `mount` returns runs when the panel next changes (to destroy a chart).
   */
  ready(content: (Node | string)[], mount?: () => () => void): void {
    this.#set('ready', ...content);
    this.#onClear = mount?.();
  }
}
