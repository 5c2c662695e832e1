/**
 * One end user's conversation with an agent, read-only
 * (`GET /api/ai/agents/:agentId/end-user-conversations/:conversationId`, its newest 200 messages):
 * the text of each message, and each tool call with its state (approved, denied, its reason).
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { endUserLabel, endUserText } from '../end-user.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';

type Transcript = ApiResponse<'GET /ai/agents/:agentId/end-user-conversations/:conversationId'>;
type Message = Transcript['messages'][number];
/** A stored message part: `text`, `tool-<name>` (a call and its state), and kinds the transcript does not show. */
type Part = { type: string; text?: string; state?: string; input?: unknown; approval?: { approved?: boolean; reason?: string } };

const TOOL_STATES: Record<string, string> = {
  'input-streaming': 'being written',
  'input-available': 'called',
  'approval-requested': 'waiting for approval',
  'approval-responded': 'answered',
  'output-available': 'ran',
  'output-error': 'failed',
  'output-denied': 'denied',
};

function partView(part: Part): HTMLElement | undefined {
  if (part.type === 'text' && part.text) return el('p', { class: 'text' }, part.text);
  if (!part.type.startsWith('tool-')) return undefined;
  const state = TOOL_STATES[part.state ?? ''] ?? part.state ?? '';
  const reason = part.approval?.reason ? `: ${part.approval.reason}` : '';
  return el(
    'div',
    { class: 'tool-call', 'data-tool': part.type.slice(5), 'data-state': part.state ?? '' },
    el('p', {}, el('strong', {}, `Tool ${part.type.slice(5)}`), ` ${state}${reason}`),
    el('pre', {}, el('code', {}, JSON.stringify(part.input ?? {}, null, 2))),
  );
}

function messageView(message: Message, who: string): HTMLElement {
  const parts = (message.parts as Part[]).flatMap((part) => partView(part) ?? []);
  return el(
    'li',
    { class: `message ${message.role}`, 'data-message-id': message.id, 'data-role': message.role },
    el('p', { class: 'author' }, message.role === 'user' ? who : 'Agent'),
    ...parts,
  );
}

export async function render({ root, params, signal }: PageContext): Promise<void> {
  show('page');
  const [agentId = '', conversationId = ''] = params;
  const heading = pageHeading('Conversation');
  const status = statusLine('transcript-status');
  const log = el('ol', { class: 'messages transcript', id: 'transcript', 'aria-label': 'Messages' });
  root.append(
    el(
      'p',
      { class: 'links' },
      el('a', { href: `#/agents/${agentId}` }, "Back to the agent's page"),
      el(
        'a',
        { href: `#/agents/${agentId}/tests?from=${conversationId}`, id: 'transcript-make-case' },
        'Make a test case from this conversation',
      ),
    ),
    heading,
    status,
    log,
  );
  status.textContent = 'Loading…';
  try {
    const transcript = await api<Transcript>(`/api/ai/agents/${agentId}/end-user-conversations/${conversationId}`, { signal });
    heading.textContent = transcript.title || 'Untitled conversation';
    log.replaceChildren(...transcript.messages.map((message) => messageView(message, endUserLabel(transcript.endUser))));
    say(status, `With ${endUserText(transcript.endUser)}. Read-only.`, 'ok');
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
  }
}
