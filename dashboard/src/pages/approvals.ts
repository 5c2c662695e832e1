/**
 * The approvals inbox (docs/chat.md, "Who answers an approval"): tool calls of end users' turns
 * waiting for the organization's staff, and those answered, newest first, paged by `before`
 * (`GET /api/ai/approvals`). Approve or Deny (`POST /api/ai/approvals/:approvalId`, `update` on
 * `ai.agent`) shows the answer on the card; 409 `AI.APPROVAL_ALREADY_ANSWERED` says someone
 * answered first. The navigation's count is read again after each answer.
 */
import { apiLimits, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { refreshApprovalCount } from '../approvals-count.ts';
import { endUserGiven, endUserLabel, when } from '../end-user.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { errorCodeOf } from './form-parts.ts';

type Page = ApiResponse<'GET /ai/approvals'>;
type Approval = Page['approvals'][number];
type Status = Approval['status'];
const PAGE_SIZE = 20;
const REASON_MAX = apiLimits['POST /ai/approvals/:approvalId'].body.reason.maxLength;

/** Who answered, in words: the signed-in user is "you"; an approval nobody answered expired. */
function outcome(approval: Approval, me: string | undefined): string {
  if (approval.status === 'pending') return `Waiting since ${when(approval.requestedAt)}.`;
  const verb = approval.approved ? 'Approved' : 'Denied';
  const by = approval.answeredBy === null ? '' : approval.answeredBy === me ? ' by you' : ` by staff user ${approval.answeredBy}`;
  const reason = approval.reason ? ` Reason: ${approval.reason}` : '';
  if (approval.answeredBy === null && !approval.approved)
    return `Expired unanswered${approval.answeredAt ? ` on ${when(approval.answeredAt)}` : ''}.${reason}`;
  return `${verb}${by}${approval.answeredAt ? ` on ${when(approval.answeredAt)}` : ''}.${reason}`;
}

function answerControls(approval: Approval, result: HTMLElement, me: string | undefined, onAnswered: () => void): HTMLElement {
  const id = `reason-${approval.id}`;
  const what = `${approval.toolName} for ${endUserLabel(approval.endUser)}`;
  const reason = el('input', { id, name: id, maxlength: String(REASON_MAX), autocomplete: 'off', 'aria-describedby': `${id}-help` });
  const approve = el('button', { type: 'button', 'data-answer': 'approve', 'aria-label': `Approve ${what}` }, 'Approve');
  const deny = el('button', { type: 'button', class: 'danger', 'data-answer': 'deny', 'aria-label': `Deny ${what}` }, 'Deny');
  const controls = el(
    'div',
    { class: 'answer' },
    el('div', { class: 'field' }, el('label', { for: id }, 'Reason (optional, sent to the model on Deny)'), reason),
    el('p', { id: `${id}-help`, class: 'note' }, `At most ${REASON_MAX} characters.`),
    el('div', { class: 'actions' }, approve, deny),
  );
  const send = (approved: boolean) => {
    approve.disabled = deny.disabled = true;
    const text = reason.value.trim();
    const body = { approved, ...(text ? { reason: text } : {}) };
    api<Approval>(`/api/ai/approvals/${approval.id}`, { body })
      .then((answered) => {
        controls.remove();
        result.dataset.outcome = answered.approved ? 'approved' : 'denied';
        say(result, `${outcome(answered, me)} The conversation goes on by itself.`, 'ok');
        result.focus();
        onAnswered();
      })
      .catch((error: unknown) => {
        approve.disabled = deny.disabled = false;
        if (errorCodeOf(error) === 'AI.APPROVAL_ALREADY_ANSWERED') {
          controls.remove();
          result.dataset.outcome = 'already-answered';
          say(result, 'Already answered: another staff member answered it first, or it expired. See Answered.');
          result.focus();
          onAnswered();
        } else say(result, describeError(error, 'update on ai.agent'));
      });
  };
  approve.addEventListener('click', () => send(true));
  deny.addEventListener('click', () => send(false));
  return controls;
}

function approvalItem(approval: Approval, agents: Map<string, string>, me: string | undefined): HTMLElement {
  const agent = agents.get(approval.agentId) ?? 'An archived agent';
  // Focused once the answer replaces the buttons, so keyboard users keep their place.
  const result = el('p', { class: 'status result', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  const titleId = `approval-${approval.id}-title`;
  const item = el(
    'li',
    { class: 'card approval', 'data-approval-id': approval.id, 'data-status': approval.status, 'aria-labelledby': titleId },
    el('h3', { id: titleId }, `${approval.toolName} for ${endUserLabel(approval.endUser)}`),
    el(
      'dl',
      { class: 'facts' },
      el('dt', {}, 'Agent'),
      el('dd', {}, agent),
      el('dt', {}, 'End user'),
      el('dd', {}, endUserLabel(approval.endUser)),
      ...(endUserGiven(approval.endUser) === ''
        ? []
        : [el('dt', {}, 'Name and email'), el('dd', { class: 'given' }, endUserGiven(approval.endUser))]),
      el('dt', {}, 'Asked'),
      el('dd', {}, when(approval.requestedAt)),
    ),
    el('p', { class: 'note' }, 'The tool call as the model gave it:'),
    el('pre', { class: 'tool-input' }, el('code', {}, JSON.stringify(approval.input ?? {}, null, 2))),
    el(
      'p',
      { class: 'links' },
      el(
        'a',
        {
          href: `#/agents/${approval.agentId}/conversations/${approval.conversationId}`,
          'aria-label': `Read the conversation of ${endUserLabel(approval.endUser)}`,
        },
        'Read the conversation',
      ),
    ),
  );
  if (approval.status === 'pending') {
    item.append(
      answerControls(approval, result, me, () => void refreshApprovalCount()),
      result,
    );
  } else {
    result.dataset.outcome = approval.approved ? 'approved' : 'denied';
    result.textContent = outcome(approval, me);
    item.append(result);
  }
  return item;
}

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const status = statusLine('approvals-status');
  const tabs = (['pending', 'answered'] as const).map((value) =>
    el('button', { type: 'button', 'data-status': value, 'aria-pressed': 'false' }, value === 'pending' ? 'Waiting' : 'Answered'),
  );
  const list = el('ul', { class: 'approvals', id: 'approval-list' });
  const more = el('button', { type: 'button', id: 'approvals-more' }, 'Show older approvals');
  more.hidden = true;
  root.append(
    pageHeading('Approvals'),
    el('p', { class: 'note' }, "Tool calls in end users' website chats that wait for your staff's answer."),
    el('div', { class: 'actions', role: 'group', 'aria-label': 'Which approvals' }, ...tabs),
    status,
    list,
    el('div', { class: 'actions' }, more),
  );
  status.textContent = 'Loading…';
  let agents = new Map<string, string>();
  let me: string | undefined;
  try {
    const [listed, self] = await Promise.all([
      api<ApiResponse<'GET /ai/agents'>>('/api/ai/agents', { signal }),
      api<ApiResponse<'GET /identity/me'>>('/api/identity/me', { signal }).catch(() => undefined),
    ]);
    agents = new Map(listed.agents.map((agent) => [agent.id, agent.name]));
    me = self?.id;
  } catch (error) {
    if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    return;
  }

  let current: Status = 'pending';
  let before: string | undefined;
  const load = async (fresh: boolean) => {
    if (fresh) {
      before = undefined;
      list.replaceChildren();
      list.dataset.status = current;
      for (const tab of tabs) tab.setAttribute('aria-pressed', String(tab.dataset.status === current));
    }
    more.disabled = true;
    try {
      const query = { status: current, limit: String(PAGE_SIZE), ...(before ? { before } : {}) };
      const page = await api<Page>('/api/ai/approvals', { query, signal });
      list.append(...page.approvals.map((approval) => approvalItem(approval, agents, me)));
      before = page.approvals.at(-1)?.id;
      more.hidden = !page.hasMore;
      const none = current === 'pending' ? 'Nothing is waiting for an answer.' : 'No approval has been answered yet.';
      say(status, list.childElementCount === 0 ? none : '', 'ok');
      list.dataset.loaded = 'true';
    } catch (error) {
      if (!signal.aborted) say(status, describeError(error, 'read on ai.agent'));
    } finally {
      more.disabled = false;
    }
  };
  for (const tab of tabs)
    tab.addEventListener('click', () => {
      current = tab.dataset.status as Status;
      void load(true);
    });
  more.addEventListener('click', () => void load(false));
  await load(true);
}
