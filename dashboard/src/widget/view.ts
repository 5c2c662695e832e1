/**
 * The widget's DOM in its shadow root: a launcher button and the chat panel (a non-modal dialog:
 * the page stays usable), or the panel alone filling the share page. Escape closes the panel and
 * the focus goes back to the launcher. Messages are drawn once per animation frame, each message
 * redrawn only when it changed, so a focused Approve button survives the stream's other chunks.
 */
import type { WidgetChat } from './chat.ts';
import type { Message, Part } from './stream.ts';

type Attributes = Record<string, string>;

/** An element with attributes and children; the widget never writes HTML strings. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: (Node | string)[]) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** The launcher's speech-bubble icon, hidden from assistive technology (the button has its name). */
function icon(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
  svg.append(path);
  return svg;
}

const STATE_TEXT: Record<string, string> = {
  'input-streaming': 'Preparing…',
  'input-available': 'Running…',
  'approval-responded': 'Answered, going on…',
  'output-available': 'Done',
  'output-error': 'Failed',
  'output-denied': 'Not allowed',
};

/** Whether the panel was open, kept for the tab (`sessionStorage`), so a reload opens it again. */
const openFlag = {
  get(name: string): boolean {
    try {
      return sessionStorage.getItem(name) === '1';
    } catch {
      return false;
    }
  },
  set(name: string, open: boolean): void {
    try {
      sessionStorage.setItem(name, open ? '1' : '');
    } catch {
      // Not kept: the panel starts closed after a reload.
    }
  },
};

const json = (value: unknown) => (value === undefined ? '' : (JSON.stringify(value, null, 2) ?? ''));

export function mountView(shadow: ShadowRoot, chat: WidgetChat, page: boolean): void {
  const launcher = h('button', { class: 'launcher', type: 'button', 'aria-label': 'Open the chat', 'aria-expanded': 'false' });
  launcher.append(icon());
  const title = h('h2', { id: 'title' }, 'Chat');
  const fresh = h('button', { type: 'button', class: 'quiet' }, 'New chat');
  const close = h('button', { type: 'button', class: 'quiet', 'aria-label': 'Close the chat' }, '✕');
  const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' });
  const status = h('p', { class: 'status', role: 'status' });
  const alert = h('p', { class: 'alert', role: 'alert' });
  const input = h('textarea', { id: 'input', rows: '2', maxlength: '32000', placeholder: 'Write a message…' });
  const send = h('button', { type: 'submit' }, 'Send');
  const stop = h('button', { type: 'button', class: 'quiet' }, 'Stop');
  const form = h('form', { 'aria-label': 'Send a message' }, h('label', { for: 'input', class: 'sr' }, 'Message'), input, send, stop);
  const panel = h(
    'section',
    { class: 'panel', id: 'panel', role: 'dialog', 'aria-labelledby': 'title', tabindex: '-1' },
    h('header', {}, title, fresh),
    log,
    status,
    alert,
    form,
  );
  const greeting = h('div', { class: 'msg', 'data-role': 'assistant' });
  const openName = chat.session.conversationKey.replace(/conversation$/, 'open');
  const root = h('div', { class: page ? 'root page' : 'root' });
  launcher.setAttribute('aria-controls', 'panel');
  if (page) root.append(panel);
  else {
    panel.querySelector('header')!.append(close);
    panel.hidden = true;
    root.append(launcher, panel);
  }
  shadow.append(root);

  const drawn = new Map<string, { signature: string; element: HTMLElement }>();
  let frame = 0;
  const draw = () => {
    frame = 0;
    const { view } = chat;
    title.textContent = view.agentName || 'Chat';
    // The agency's color replaces the widget's blue (its buttons and the end user's messages).
    if (view.color) root.style.setProperty('--brand', view.color);
    const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    const elements = view.messages.filter((message) => message.parts.length > 0).map((message) => messageElement(message));
    greeting.textContent = view.greeting;
    if (view.greeting && view.messages.length === 0) elements.unshift(greeting);
    if (elements.length !== log.children.length || elements.some((element, index) => log.children[index] !== element))
      log.replaceChildren(...elements);
    if (atEnd) log.scrollTop = log.scrollHeight;
    status.textContent = view.status;
    alert.textContent = view.failure;
    alert.hidden = view.failure === '';
    send.disabled = view.busy || view.closed;
    input.disabled = view.closed;
    stop.hidden = !view.busy;
    fresh.disabled = view.busy || view.closed;
  };
  const redraw = () => {
    frame ||= requestAnimationFrame(draw);
  };

  const messageElement = (message: Message): HTMLElement => {
    const signature = JSON.stringify([message, chat.view.approvals, chat.view.busy]);
    const kept = drawn.get(message.id);
    if (kept?.signature === signature) return kept.element;
    const element = h('div', { class: 'msg', 'data-role': message.role });
    element.append(h('span', { class: 'sr' }, message.role === 'user' ? 'You: ' : `${chat.view.agentName || 'Agent'}: `));
    for (const part of message.parts) {
      if (part.type === 'text' && part.text) element.append(h('p', {}, part.text));
      else if (part.toolCallId) element.append(toolElement(part));
    }
    drawn.set(message.id, { signature, element });
    return element;
  };

  const toolElement = (part: Part): HTMLElement => {
    const name = part.type.slice(5);
    const waiting = part.state === 'approval-requested';
    const stateText = waiting ? (chat.view.approvals === 'staff' ? 'Needs approval' : 'Needs your approval') : STATE_TEXT[part.state ?? ''];
    const card = h(
      'div',
      { class: 'tool', role: 'group', 'aria-label': `Tool ${name}`, 'data-state': part.state ?? '' },
      h('strong', {}, name),
      ' ',
      h('span', { class: 'state' }, stateText ?? part.state ?? ''),
    );
    if (part.input !== undefined || part.output !== undefined) {
      const details = h('details', {}, h('summary', {}, 'Details'));
      if (part.input !== undefined) details.append(h('pre', {}, `Input: ${json(part.input)}`));
      if (part.output !== undefined) details.append(h('pre', {}, `Output: ${json(part.output)}`));
      card.append(details);
    }
    if (part.state === 'output-error' && part.errorText) card.append(h('p', {}, part.errorText));
    const approvalId = part.approval?.id;
    if (waiting && approvalId && chat.view.approvals === 'staff')
      card.append(h('p', { class: 'waiting' }, 'Waiting for a person to approve'));
    else if (waiting && approvalId) {
      const approve = h('button', { type: 'button' }, 'Approve');
      const deny = h('button', { type: 'button', class: 'quiet' }, 'Deny');
      approve.disabled = deny.disabled = chat.view.busy;
      approve.addEventListener('click', () => void chat.answer(approvalId, true));
      deny.addEventListener('click', () => void chat.answer(approvalId, false));
      card.append(h('div', { class: 'actions', role: 'group', 'aria-label': `Allow ${name}?` }, approve, deny));
    }
    return card;
  };

  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    chat.active = open;
    launcher.setAttribute('aria-expanded', String(open));
    launcher.setAttribute('aria-label', open ? 'Hide the chat' : 'Open the chat');
    openFlag.set(openName, open);
    if (open) {
      void chat.start();
      if (input.disabled) panel.focus();
      else input.focus();
    } else launcher.focus();
  };

  launcher.addEventListener('click', () => setOpen(panel.hidden));
  close.addEventListener('click', () => setOpen(false));
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !page) {
      event.stopPropagation();
      setOpen(false);
    }
  });
  fresh.addEventListener('click', () => {
    chat.newConversation();
    input.focus();
  });
  stop.addEventListener('click', () => void chat.stop());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || chat.view.busy) return;
    input.value = '';
    void chat.send(text).then((sent) => {
      if (!sent && input.value === '') input.value = text;
    });
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  chat.onChange = redraw;
  draw();
  if (page) {
    chat.active = true;
    void chat.start();
  } else if (openFlag.get(openName)) {
    // Open before the reload: open again, without taking the page's focus.
    panel.hidden = false;
    chat.active = true;
    launcher.setAttribute('aria-expanded', 'true');
    launcher.setAttribute('aria-label', 'Hide the chat');
    void chat.start();
  }
}
