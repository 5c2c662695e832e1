/** The end users of the agents' website chat who cost the most in the window, highest cost first (as the API orders them). */
import { endUserLabel } from '../end-user.ts';
import { el, formatInteger, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { EndUsers } from '../types.ts';

export function renderEndUsers(panel: Panel, { endUsers }: EndUsers): void {
  if (endUsers.length === 0) {
    panel.empty('No website chat usage in this window.');
    return;
  }
  const header = el(
    'tr',
    {},
    el('th', { scope: 'col' }, 'End user'),
    ...['Turns', 'Tokens', 'Cost'].map((label) => el('th', { scope: 'col', class: 'num' }, label)),
  );
  const rows = endUsers.map((user) =>
    el(
      'tr',
      { 'data-end-user-id': user.endUserId },
      el('th', { scope: 'row' }, endUserLabel({ ...user, id: user.endUserId })),
      el('td', { class: 'num', 'data-key': 'turns' }, formatInteger(user.turns)),
      el('td', { class: 'num', 'data-key': 'totalTokens' }, formatInteger(user.totalTokens)),
      el('td', { class: 'num', 'data-key': 'totalCostUsd' }, formatUsd(user.totalCostUsd)),
    ),
  );
  const table = el(
    'table',
    { class: 'end-users' },
    el('caption', { class: 'sr-only' }, 'End users by cost, highest first'),
    el('thead', {}, header),
    el('tbody', {}, ...rows),
  );
  panel.ready([el('div', { class: 'scroll' }, table)]);
}
