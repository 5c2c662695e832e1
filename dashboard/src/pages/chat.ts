/**
 * Chat with an agent through the AI SDK's client (`AbstractChat` + `DefaultChatTransport`): the
 * caller's conversations (listed, resumable), the answer streamed as it arrives, each tool call
 * as a card (`chat-message.ts`) with Approve / Deny / Always allow when it waits for approval, and
 * Stop, which asks the service to stop the turn (POST .../chat/:id/stop: the answer so far is
 * saved). Leaving the page or reloading only disconnects: the turn goes on on the server, and a
 * reopened conversation follows an answer still being written (`resumeStream`, useChat's
 * `resume: true`).
 */
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { ConsoleChat } from '../chat-state.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { session } from '../session.ts';
import { actingOrganizationId } from '../workspace.ts';
import { describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { chatFailure } from './chat-error.ts';
import { MessageLog } from './chat-message.ts';

/** Said under an answer that ended with finish reason `length`. */
const LENGTH_NOTE = "The answer stopped at its length limit (the agent's output limit, or the service's 1 MiB per answer).";

type Conversations = ApiResponse<'GET /ai/agents/:agentId/conversations'>;

/** `fetch` for the transport: the session's token, the chosen workspace, and one refresh and retry on a 401. */
async function authedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const send = () => {
    const headers = new Headers(init.headers);
    if (session.accessToken) headers.set('authorization', `Bearer ${session.accessToken}`);
    const organizationId = actingOrganizationId();
    if (organizationId) headers.set('x-org-id', organizationId);
    return fetch(input, { ...init, headers, credentials: 'omit' });
  };
  if (!session.accessToken) await session.refresh();
  const token = session.accessToken;
  const response = await send();
  if (response.status !== 401) return response;
  if (session.accessToken === token && !(await session.refresh())) return response;
  return send();
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = '', resumed] = params;
  const base = `/api/ai/agents/${agentId}`;
  const conversationId = resumed ?? crypto.randomUUID();
  const list = el('ul', { class: 'conversations', id: 'conversation-list' });
  const status = statusLine('chat-status');
  const log = el('div', { class: 'messages', id: 'messages', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
  const input = el('textarea', { id: 'chat-input', name: 'message', rows: '3', required: '' });
  const send = el('button', { type: 'submit' }, 'Send');
  const stop = el('button', { type: 'button', id: 'chat-stop' }, 'Stop');
  stop.disabled = true;
  const composer = el(
    'form',
    { class: 'composer', id: 'composer', 'aria-label': 'Send a message' },
    el('label', { for: 'chat-input' }, 'Message'),
    input,
    el('div', { class: 'actions' }, send, stop),
  );
  root.append(
    pageHeading('Chat'),
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agentId}/tools` }, 'Tool permissions'),
      el('a', { href: `#/agents/${agentId}/mcp-servers` }, 'MCP servers'),
    ),
    el(
      'div',
      { class: 'chat' },
      el(
        'nav',
        { class: 'card', 'aria-label': 'Conversations' },
        el('a', { href: `#/agents/${agentId}/chat`, id: 'new-conversation' }, 'New conversation'),
        list,
      ),
      el('section', { class: 'card', 'aria-label': 'Messages', id: 'chat', 'data-conversation-id': conversationId }, log, status, composer),
    ),
  );

  const showConversations = async () => {
    try {
      const { conversations } = await api<Conversations>(`${base}/conversations`, { signal });
      list.replaceChildren(
        ...conversations.map((conversation) =>
          el(
            'li',
            {},
            el(
              'a',
              {
                href: `#/agents/${agentId}/chat/${conversation.id}`,
                'data-conversation-id': conversation.id,
                'aria-current': String(conversation.id === conversationId),
              },
              conversation.title || 'Untitled conversation',
            ),
          ),
        ),
      );
    } catch (error) {
      if (!signal.aborted) list.replaceChildren(el('li', { class: 'error' }, describeError(error)));
    }
  };

  let messages: UIMessage[] = [];
  if (resumed) {
    try {
      messages = (await api<{ id: string; messages: UIMessage[] }>(`${base}/conversations/${resumed}`, { signal })).messages;
    } catch (error) {
      if (!signal.aborted) say(status, describeError(error));
      return;
    }
  }

  let frame = 0;
  let cutNote = '';
  const draw = () => {
    frame = 0;
    const busy = chat.status === 'submitted' || chat.status === 'streaming';
    stop.disabled = !busy;
    send.disabled = busy;
    root.querySelector('#chat')?.setAttribute('data-status', chat.status);
    messageLog.draw(chat.messages);
    if (chat.error) say(status, chatFailure(chat.error));
    else say(status, chat.status === 'submitted' ? 'Waiting for the answer…' : chat.status === 'streaming' ? 'Answering…' : cutNote, 'ok');
  };
  const chat: ConsoleChat = new ConsoleChat({
    id: conversationId,
    messages,
    onChange: () => {
      frame ||= requestAnimationFrame(draw);
    },
    transport: new DefaultChatTransport({ api: `${base}/chat`, fetch: authedFetch, credentials: 'omit' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onFinish: ({ finishReason }) => {
      cutNote = finishReason === 'length' ? LENGTH_NOTE : '';
      frame ||= requestAnimationFrame(draw);
      void showConversations();
    },
  });
  const actions = {
    approve: (id: string) => void chat.addToolApprovalResponse({ id, approved: true }),
    deny: (id: string, reason: string) => void chat.addToolApprovalResponse({ id, approved: false, ...(reason ? { reason } : {}) }),
    alwaysAllow: async (id: string, toolName: string) => {
      // Recorded first: if the override is refused, nothing is approved.
      await api(`${base}/tool-overrides`, { method: 'POST', body: { toolName } });
      await chat.addToolApprovalResponse({ id, approved: true });
    },
    fail: (error: unknown) => say(status, describeError(error)),
  };
  const messageLog = new MessageLog(log, actions);
  signal.addEventListener('abort', () => void chat.stop());

  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    // The address names the conversation from its first message, so a reload resumes the answer.
    if (!resumed) history.replaceState(null, '', `#/agents/${agentId}/chat/${conversationId}`);
    void chat.sendMessage({ text });
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  stop.addEventListener('click', () => {
    // The service stops the turn and saves what was written; the stream then ends with `finish`.
    api(`${base}/chat/${conversationId}/stop`, { method: 'POST' }).catch((error: unknown) => say(status, describeError(error)));
  });
  draw();
  // An answer still being written (a reload, another tab): followed from its first chunk; 204 when none.
  if (resumed) void chat.resumeStream();
  // What the browser test measures as the chat view's first meaningful paint.
  performance.mark('chat-view-ready');
  await showConversations();
}
