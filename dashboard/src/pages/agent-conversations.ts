/**
 * On the agent page: its end users' conversations from the website chat, most recently active
 * first (`GET /api/ai/agents/:agentId/end-user-conversations`, paged by `before`): who, title,
 * when and how many messages; each opens read-only (`transcript.ts`).
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { endUserText, when } from '../end-user.ts';
import { el, formatInteger } from '../format.ts';
import { card, describeError, say, statusLine } from '../ui.ts';

type Page = ApiResponse<'GET /ai/agents/:agentId/end-user-conversations'>;
type Conversation = Page['conversations'][number];
const PAGE_SIZE = 20;

function item(agentId: string, conversation: Conversation): HTMLElement {
  const who = endUserText(conversation.endUser);
  return el(
    'li',
    { 'data-conversation-id': conversation.id, 'data-messages': String(conversation.messageCount) },
    el(
      'a',
      {
        href: `#/agents/${agentId}/conversations/${conversation.id}`,
        // Titles repeat (the same first question): the name says whose conversation and when.
        'aria-label': `${conversation.title || 'Untitled conversation'}: ${who}, last ${when(conversation.updatedAt)}`,
      },
      conversation.title || 'Untitled conversation',
    ),
    el(
      'span',
      { class: 'note' },
      `${who}, ${formatInteger(conversation.messageCount)} ${conversation.messageCount === 1 ? 'message' : 'messages'}, last ${when(conversation.updatedAt)}`,
    ),
  );
}

export function conversationsCard(agentId: string, signal: AbortSignal): HTMLElement {
  const status = statusLine('agent-conversations-status');
  const list = el('ul', { class: 'conversations transcripts', id: 'agent-conversation-list' });
  const more = el('button', { type: 'button', id: 'agent-conversations-more' }, 'Show older conversations');
  more.hidden = true;
  let before: string | undefined;
  const load = async () => {
    more.disabled = true;
    try {
      const query: Record<string, string> = { limit: String(PAGE_SIZE), ...(before ? { before } : {}) };
      const page = await api<Page>(`/api/ai/agents/${agentId}/end-user-conversations`, { query, signal });
      list.append(...page.conversations.map((conversation) => item(agentId, conversation)));
      before = page.conversations.at(-1)?.id;
      more.hidden = !page.hasMore;
      say(status, list.childElementCount === 0 ? 'No one has chatted with this agent on a website yet.' : '', 'ok');
    } catch (error) {
      if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', () => void load());
  void load();
  return card(
    'agent-conversations',
    "End users' conversations",
    el('p', { class: 'note' }, 'Conversations on the website chat, most recently active first. They open read-only.'),
    status,
    list,
    el('div', { class: 'actions' }, more),
  );
}
