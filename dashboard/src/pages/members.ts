/**
 * The members of the organization the console acts in (`GET /api/organization/my/members`): who,
 * their role and since when, Remove behind a confirmation (the last owner stays: the API's 409 is
 * said), and Invite (`POST /api/organization/my/invitations`: an email with a one-time link, valid
 * 7 days). In a client workspace these are the business's people, not the agency's.
 */
import { ApiError } from '../api.ts';
import { apiLimits, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { confirmDialog } from '../confirm-dialog.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { actingName } from '../workspace.ts';

type Members = ApiResponse<'GET /organization/my/members'>;
type Member = Members['members'][number];
type Invitation = ApiResponse<'POST /organization/my/invitations'>;

/** The most members one page lists (the API's largest page). */
const SHOWN = apiLimits['GET /organization/my/members'].query.limit.maximum;
const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
const ROLES: [string, string][] = [
  ['member', 'Member: reads agents and answers approvals'],
  ['owner', 'Owner: runs the workspace'],
  ['client', 'Client: a customer who chats on the website'],
];

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const where = actingName();
  const status = statusLine('members-status');
  const rows = el('tbody', { id: 'member-rows' });
  const table = el(
    'table',
    { class: 'plain-table', id: 'member-list' },
    el('caption', { class: 'sr-only' }, `Members of ${where}`),
    el('thead', {}, el('tr', {}, ...['Name', 'Email', 'Role', 'Since', 'Actions'].map((text) => el('th', { scope: 'col' }, text)))),
    rows,
  );
  const invite = inviteForm(where, status);
  root.append(
    pageHeading(`Members of ${where}`),
    card('members', 'People', status, el('div', { class: 'table-scroll' }, table)),
    card('invite', 'Invite someone', invite.form, invite.sent),
  );

  const reload = async () => {
    try {
      const { members, hasMore } = await api<Members>('/api/organization/my/members', {
        signal,
        query: { limit: String(SHOWN) },
      });
      rows.replaceChildren(...members.map((member) => memberRow(member, status, reload)));
      table.dataset.loaded = 'true';
      say(status, members.length === 0 ? 'No members yet.' : hasMore ? `The newest ${SHOWN} members are shown.` : '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 403) invite.form.hidden = true;
      say(status, describeError(error, 'read on organization.member'));
    }
  };
  invite.onSent = reload;
  await reload();
}

function memberRow(member: Member, status: HTMLElement, reload: () => Promise<void>): HTMLTableRowElement {
  const remove = el('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${member.name} (${member.email})` }, 'Remove');
  const dialog = confirmDialog({
    id: `remove-${member.userId}`,
    open: remove,
    status,
    title: `Remove ${member.name}?`,
    text: `${member.email} loses access to this workspace at once.`,
    confirmLabel: 'Remove',
    grant: 'delete on organization.member',
    act: () => api(`/api/organization/my/members/${member.userId}`, { method: 'DELETE' }),
    done: () => {
      say(status, `${member.email} was removed.`, 'ok');
      void reload();
    },
  });
  return el(
    'tr',
    { 'data-user-id': member.userId },
    el('td', {}, member.name),
    el('td', {}, member.email),
    el('td', {}, member.role),
    el('td', {}, date.format(new Date(member.createdAt))),
    el('td', {}, remove, dialog),
  );
}

function inviteForm(where: string, status: HTMLElement) {
  const email = field('invite-email', 'Email to invite', {
    type: 'email',
    autocomplete: 'off',
    required: '',
    maxlength: String(apiLimits['POST /organization/my/invitations'].body.email.maxLength),
  });
  const role = el('select', { id: 'invite-role', name: 'invite-role' }, ...ROLES.map(([value, text]) => el('option', { value }, text)));
  const submit = el('button', { type: 'submit' }, 'Send invitation');
  const form = el(
    'form',
    { id: 'invite-form', novalidate: '', 'aria-label': `Invite someone to ${where}` },
    email.block,
    el('div', { class: 'field' }, el('label', { for: 'invite-role' }, 'Role'), role),
    el('div', { class: 'actions' }, submit),
  );
  const sent = el('p', { id: 'invite-sent', role: 'status', 'aria-live': 'polite' });
  const result = { form, sent, onSent: async () => {} };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const address = email.input.value.trim();
    if (!address) return say(status, 'Enter the email to invite.');
    submit.disabled = true;
    say(sent, '', 'ok');
    api<Invitation>('/api/organization/my/invitations', { method: 'POST', body: { email: address, role: role.value } })
      .then(async (invitation) => {
        email.input.value = '';
        say(
          sent,
          `Invitation sent to ${invitation.email} as ${invitation.role}; the link works until ${dateTime.format(new Date(invitation.expiresAt))}.`,
          'ok',
        );
        await result.onSent();
      })
      .catch((error: unknown) => say(sent, describeError(error, 'create on organization.member')))
      .finally(() => {
        submit.disabled = false;
      });
  });
  return result;
}
