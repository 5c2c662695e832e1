/**
 * One chat message: its text parts and, for each tool call, a card with the tool's name, input
 * and state; a call waiting for approval offers Approve, Deny with an optional reason (counted to
 * the API's limit) and "Always allow for me".
 */
import { getToolName, isToolUIPart, type UIMessage } from 'ai';
import { apiLimits } from '../api-types.generated.ts';
import { el } from '../format.ts';

export type ApprovalActions = {
  approve(id: string): void;
  deny(id: string, reason: string): void;
  alwaysAllow(id: string, toolName: string): Promise<void>;
  fail(error: unknown): void;
};

/** The API's limit on a denial reason (the staff approval route declares the one the chat checks). */
export const MAX_REASON = apiLimits['POST /ai/approvals/:approvalId'].body.reason.maxLength;

const STATE_TEXT: Record<string, string> = {
  'input-streaming': 'Preparing the call…',
  'input-available': 'Running…',
  'approval-requested': 'Waiting for your approval',
  'approval-responded': 'Answered, continuing…',
  'output-available': 'Done',
  'output-error': 'Failed',
  'output-denied': 'Denied',
};

const json = (value: unknown) => JSON.stringify(value, null, 2) ?? '';

/**
 * The message log, redrawn whole on every change of the stream. The approval controls are kept
 * across redraws by approval id: a reason being typed when the answer's last chunks arrive keeps
 * its text, its caret and the focus (a redraw used to build a blank field in its place).
 */
export class MessageLog {
  readonly #log: HTMLElement;
  readonly #actions: ApprovalActions;
  /** Invariant after a draw: exactly the controls of the approvals the messages still ask. */
  #controls = new Map<string, HTMLElement>();

  constructor(log: HTMLElement, actions: ApprovalActions) {
    this.#log = log;
    this.#actions = actions;
  }

  draw(messages: readonly UIMessage[]): void {
    const focused = document.activeElement;
    const field = focused instanceof HTMLTextAreaElement && this.#log.contains(focused) ? focused : undefined;
    const caret = field ? ([field.selectionStart, field.selectionEnd] as const) : undefined;
    const previous = this.#controls;
    this.#controls = new Map();
    const controls = (approvalId: string, make: () => HTMLElement) => {
      const kept = previous.get(approvalId) ?? make();
      this.#controls.set(approvalId, kept);
      return kept;
    };
    this.#log.replaceChildren(...messages.map((message) => renderMessage(message, this.#actions, controls)));
    if (field?.isConnected && caret) {
      field.focus();
      field.setSelectionRange(...caret);
    }
  }
}

type KeptControls = (approvalId: string, make: () => HTMLElement) => HTMLElement;

function renderMessage(message: UIMessage, actions: ApprovalActions, controls: KeptControls): HTMLElement {
  const element = el(
    'article',
    { class: 'message', 'data-role': message.role, 'data-message-id': message.id },
    el('h3', { class: 'sr-only' }, message.role === 'user' ? 'You' : 'Agent'),
  );
  for (const part of message.parts) {
    if (part.type === 'text') element.append(el('p', {}, part.text));
    else if (isToolUIPart(part)) element.append(toolCard(part, actions, controls));
  }
  return element;
}

type ToolPart = Extract<UIMessage['parts'][number], { toolCallId: string }>;

function toolCard(part: ToolPart, actions: ApprovalActions, controls: KeptControls): HTMLElement {
  const toolName = getToolName(part);
  const card = el(
    'section',
    { class: 'tool-card', 'data-tool': toolName, 'data-state': part.state, 'aria-label': `Tool ${toolName}` },
    el('p', {}, el('strong', {}, toolName), ' ', el('span', { class: 'state' }, STATE_TEXT[part.state] ?? part.state)),
  );
  if (part.input !== undefined) card.append(el('p', { class: 'note' }, 'Input'), el('pre', { class: 'tool-input' }, json(part.input)));
  if (part.state === 'output-available')
    card.append(el('p', { class: 'note' }, 'Output'), el('pre', { class: 'tool-output' }, json(part.output)));
  if (part.state === 'output-error') card.append(el('p', { class: 'error' }, part.errorText));
  const approval = 'approval' in part ? part.approval : undefined;
  if (part.state === 'output-denied' && approval?.reason) card.append(el('p', { class: 'note' }, `Reason: ${approval.reason}`));
  if (part.state === 'approval-requested' && approval)
    card.append(controls(approval.id, () => approvalControls(approval.id, toolName, part.toolCallId, actions)));
  return card;
}

function approvalControls(approvalId: string, toolName: string, callId: string, actions: ApprovalActions): HTMLElement {
  const reasonId = `reason-${callId}`;
  const reason = el('textarea', { id: reasonId, rows: '2', maxlength: String(MAX_REASON), 'aria-describedby': `${reasonId}-count` });
  const count = el('span', { id: `${reasonId}-count`, class: 'counter', 'aria-live': 'polite' }, `0 / ${MAX_REASON}`);
  reason.addEventListener('input', () => {
    count.textContent = `${reason.value.length} / ${MAX_REASON}`;
  });
  const approve = el('button', { type: 'button', 'aria-label': `Approve ${toolName}` }, 'Approve');
  const deny = el('button', { type: 'button', class: 'danger', 'aria-label': `Deny ${toolName}` }, 'Deny');
  const always = el('button', { type: 'button', 'aria-label': `Always allow for me: ${toolName}` }, 'Always allow for me');
  const buttons = [approve, deny, always];
  const once = (run: () => void | Promise<void>) => () => {
    for (const button of buttons) button.disabled = true;
    Promise.resolve()
      .then(run)
      .catch((error: unknown) => {
        for (const button of buttons) button.disabled = false;
        actions.fail(error);
      });
  };
  approve.addEventListener(
    'click',
    once(() => actions.approve(approvalId)),
  );
  deny.addEventListener(
    'click',
    once(() => actions.deny(approvalId, reason.value.slice(0, MAX_REASON))),
  );
  always.addEventListener(
    'click',
    once(() => actions.alwaysAllow(approvalId, toolName)),
  );
  return el(
    'div',
    { class: 'approval' },
    el('div', { class: 'field' }, el('label', { for: reasonId }, 'Reason for a denial (optional)'), reason, count),
    el('div', { class: 'actions' }, ...buttons),
  );
}
