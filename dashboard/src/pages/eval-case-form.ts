/**
 * "Add a test case" on an agent's Tests page (`POST /api/ai/agents/:agentId/eval-cases`,
 * docs/evaluations.md "Cases"): its name, its messages, written here (user and agent turns,
 * ending with the user's) or taken from a conversation of the agent (its words up to its last user
 * message), and what the answer must show: phrases it contains or not, the tools it calls in
 * order, no tool call, a rubric for the judge. At least one expectation; the API's limits apply.
 */
import { apiLimits, type ApiBody, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { endUserText, when } from '../end-user.ts';
import { el } from '../format.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';

type Body = ApiBody<'POST /ai/agents/:agentId/eval-cases'>;
export type EvalCase = ApiResponse<'POST /ai/agents/:agentId/eval-cases'>;
type Conversations = ApiResponse<'GET /ai/agents/:agentId/end-user-conversations'>;
const LIMITS = apiLimits['POST /ai/agents/:agentId/eval-cases'].body;

/** One phrase or name a line, blank lines left out. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

function textArea(id: string, label: string, help: string, rows = 3): { block: HTMLElement; area: HTMLTextAreaElement } {
  const area = el('textarea', { id, name: id, rows: String(rows), 'aria-describedby': `${id}-help` });
  const block = el('div', { class: 'field' }, el('label', { for: id }, label), area, el('p', { id: `${id}-help`, class: 'note' }, help));
  return { block, area };
}

/** The written messages: a row per turn (who, text), Add and Remove; rows are named by their place. */
function messageEditor() {
  const list = el('ol', { class: 'case-messages', id: 'case-messages' });
  let counter = 0;
  const renumber = () =>
    [...list.children].forEach((row, index) => {
      const [who, text] = row.querySelectorAll('label');
      who!.textContent = `Message ${index + 1}: who`;
      text!.textContent = `Message ${index + 1}: text`;
      row.querySelector('button')!.setAttribute('aria-label', `Remove message ${index + 1}`);
    });
  const add = (role: 'user' | 'assistant') => {
    counter += 1;
    const n = counter;
    const select = el(
      'select',
      { id: `case-message-${n}-role`, name: `case-message-${n}-role` },
      el('option', { value: 'user' }, 'The user'),
      el('option', { value: 'assistant' }, 'The agent'),
    );
    select.value = role;
    const text = el('textarea', {
      id: `case-message-${n}-text`,
      name: `case-message-${n}-text`,
      rows: '2',
      maxlength: String(LIMITS['messages[].parts[].text'].maxLength),
    });
    const remove = el('button', { type: 'button' }, 'Remove');
    const row = el(
      'li',
      { class: 'case-message' },
      el('div', { class: 'field' }, el('label', { for: select.id }), select),
      el('div', { class: 'field' }, el('label', { for: text.id }), text),
      remove,
    );
    remove.addEventListener('click', () => {
      if (list.childElementCount === 1) return;
      row.remove();
      renumber();
      addButton.focus();
    });
    list.append(row);
    renumber();
    return text;
  };
  const addButton = el('button', { type: 'button', id: 'case-message-add' }, 'Add a message');
  addButton.addEventListener('click', () => add(list.childElementCount % 2 === 0 ? 'user' : 'assistant').focus());
  add('user');
  const values = () =>
    [...list.querySelectorAll('li')].map((row) => ({
      role: row.querySelector('select')!.value as 'user' | 'assistant',
      text: row.querySelector('textarea')!.value,
    }));
  const reset = () => {
    list.replaceChildren();
    add('user');
  };
  return { block: el('div', { class: 'written' }, list, el('div', { class: 'actions' }, addButton)), values, reset };
}

export function caseFormCard(options: {
  agentId: string;
  agentName: string;
  /** A conversation to start from (the transcript page's "Make a test case"). */
  fromConversation?: string;
  signal: AbortSignal;
  added: (created: EvalCase) => void;
}): HTMLElement {
  const { agentId, agentName, signal } = options;
  const name = field(
    'case-name',
    'Name of the case',
    { maxlength: String(LIMITS.name.maxLength), autocomplete: 'off' },
    'What the case checks, e.g. "Refund after 30 days".',
  );
  const written = el('input', { type: 'radio', name: 'case-source', id: 'case-source-written', value: 'written' });
  const fromChat = el('input', { type: 'radio', name: 'case-source', id: 'case-source-conversation', value: 'conversation' });
  const conversation = el('select', { id: 'case-conversation', name: 'case-conversation', 'aria-describedby': 'case-conversation-help' });
  const conversationBlock = el(
    'div',
    { class: 'field' },
    el('label', { for: 'case-conversation' }, `Conversation of ${agentName}`),
    conversation,
    el(
      'p',
      { id: 'case-conversation-help', class: 'note' },
      'The case takes its words up to its last user message; the agent’s answer to that message is what is tested.',
    ),
  );
  const messages = messageEditor();
  const contains = textArea('case-contains', 'The answer contains', 'One phrase a line, matched in any case.');
  const notContains = textArea('case-not-contains', 'The answer does not contain', 'One phrase a line, matched in any case.');
  const toolCalls = textArea('case-tool-calls', 'Tools called, in this order', 'One tool name a line (other calls may come between).');
  const noTools = el('input', { type: 'checkbox', id: 'case-no-tool-calls' });
  const judge = textArea(
    'case-judge',
    'Rubric for the judge',
    `A model reads the case and the answer and says PASS or FAIL with a reason. At most ${LIMITS['expect.judge'].maxLength} characters.`,
  );
  judge.area.maxLength = LIMITS['expect.judge'].maxLength;
  const submit = el('button', { type: 'submit' }, 'Add test case');
  const status = statusLine('case-form-status');

  const showSource = () => {
    messages.block.hidden = !written.checked;
    conversationBlock.hidden = written.checked;
  };
  written.addEventListener('change', showSource);
  fromChat.addEventListener('change', showSource);
  (options.fromConversation ? fromChat : written).checked = true;
  showSource();

  // The recorded conversations to choose from: the website chat's, most recent first.
  api<Conversations>(`/api/ai/agents/${agentId}/end-user-conversations`, { query: { limit: '50' }, signal })
    .then((page) => {
      const found = page.conversations.map((c) =>
        el('option', { value: c.id }, `${c.title || 'Untitled conversation'}: ${endUserText(c.endUser)}, ${when(c.updatedAt)}`),
      );
      if (options.fromConversation && !page.conversations.some((c) => c.id === options.fromConversation))
        found.unshift(el('option', { value: options.fromConversation }, `Conversation ${options.fromConversation}`));
      conversation.replaceChildren(...found);
      if (options.fromConversation) conversation.value = options.fromConversation;
      if (found.length === 0) conversation.append(el('option', { value: '' }, 'No recorded conversations yet'));
    })
    .catch((error: unknown) => {
      if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    });

  const form = el(
    'form',
    { id: 'case-form', novalidate: '', 'aria-label': `Add a test case to ${agentName}` },
    name.block,
    el(
      'fieldset',
      { class: 'choices-block' },
      el('legend', {}, 'Messages'),
      el(
        'div',
        { class: 'choices' },
        el('label', { class: 'choice' }, written, ' Write them'),
        el('label', { class: 'choice' }, fromChat, ' From a conversation'),
      ),
      messages.block,
      conversationBlock,
    ),
    el(
      'fieldset',
      { class: 'choices-block' },
      el('legend', {}, 'What the answer must show'),
      contains.block,
      notContains.block,
      toolCalls.block,
      el('label', { class: 'choice' }, noTools, ' No tool is called'),
      judge.block,
    ),
    el('div', { class: 'actions' }, submit),
    status,
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const expect: Body['expect'] = {};
    if (lines(contains.area.value).length > 0) expect.contains = lines(contains.area.value);
    if (lines(notContains.area.value).length > 0) expect.notContains = lines(notContains.area.value);
    if (lines(toolCalls.area.value).length > 0) expect.toolCalls = lines(toolCalls.area.value);
    if (noTools.checked) expect.noToolCalls = true;
    if (judge.area.value.trim() !== '') expect.judge = judge.area.value.trim();
    if (name.input.value.trim() === '') return say(status, 'Give the case a name.');
    if (Object.keys(expect).length === 0) return say(status, 'Say at least one thing the answer must show.');
    const body: Body = { name: name.input.value.trim(), expect };
    if (written.checked) {
      const turns = messages.values().filter((turn) => turn.text.trim() !== '');
      if (turns.at(-1)?.role !== 'user') return say(status, 'The messages must end with one of the user’s.');
      body.messages = turns.map((turn) => ({ role: turn.role, parts: [{ type: 'text' as const, text: turn.text }] }));
    } else {
      if (!conversation.value) return say(status, 'Choose a conversation.');
      body.fromConversationId = conversation.value;
    }
    submit.disabled = true;
    say(status, 'Adding…', 'ok');
    api<EvalCase>(`/api/ai/agents/${agentId}/eval-cases`, { method: 'POST', body })
      .then((created) => {
        form.reset();
        messages.reset();
        written.checked = true;
        showSource();
        say(status, `Added "${created.name}".`, 'ok');
        options.added(created);
      })
      .catch((error: unknown) => say(status, describeError(error, 'update on ai.agent')))
      .finally(() => (submit.disabled = false));
  });
  return card('case-add', 'Add a test case', form);
}
