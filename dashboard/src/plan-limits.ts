/**
 * The usage page's "Your plan" card (`GET /api/organization/my/plan-usage`): a business's plan,
 * each of its limits and how much of it the business uses now (this UTC month for the monthly
 * ones). Hidden for an organization on no plan (an agency) or an account that may not read it.
 */
import type { ApiResponse } from './api-types.generated.ts';
import { api } from './authed.ts';
import { el, formatInteger, formatUsd } from './format.ts';
import { byId } from './views.ts';

type PlanUsage = ApiResponse<'GET /organization/my/plan-usage'>;

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const mb = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** One limit: its name, what is used, the limit (null: none), and how each reads. */
type Line = { key: string; label: string; used: number; limit: number | null; show: (value: number) => string };

function lines(usage: PlanUsage): Line[] {
  const { limits, used } = usage;
  return [
    { key: 'agents', label: 'Agents', used: used.agents, limit: limits.maxAgents, show: formatInteger },
    { key: 'users', label: 'Staff users', used: used.users, limit: limits.maxUsers, show: formatInteger },
    {
      key: 'messages',
      label: 'End-user messages this month',
      used: used.endUserMessages,
      limit: limits.maxEndUserMessagesPerMonth,
      show: formatInteger,
    },
    {
      key: 'documents',
      label: 'Documents',
      used: used.documentsMb,
      limit: limits.maxDocumentsMb,
      show: (value) => `${mb.format(value)} MB`,
    },
    { key: 'usage', label: 'Usage this month', used: used.usageUsd, limit: limits.monthlyUsageUsd, show: (value) => formatUsd(value) },
  ];
}

function row(line: Line): HTMLTableRowElement {
  const share = line.limit === null ? undefined : Math.min(1, line.used / line.limit);
  const meter = el('div', { class: 'meter', 'aria-hidden': 'true', style: `--value: ${share ?? 0}` });
  meter.classList.toggle('over', share !== undefined && share >= 1);
  return el(
    'tr',
    { 'data-limit': line.key },
    el('th', { scope: 'row' }, line.label),
    el('td', { class: 'number' }, line.show(line.used)),
    el('td', { class: 'number' }, line.limit === null ? 'No limit' : line.key === 'usage' ? usd.format(line.limit) : line.show(line.limit)),
    el(
      'td',
      { class: 'plan-meter' },
      share === undefined ? '' : `${formatInteger(Math.floor(share * 100))}%`,
      ...(share === undefined ? [] : [meter]),
    ),
  );
}

/** Fills the card for the acting organization, or hides it. */
export async function renderPlanLimits(signal: AbortSignal): Promise<void> {
  const section = byId('plan-limits');
  const body = byId('plan-limits-body');
  delete section.dataset.loaded;
  const usage = await api<PlanUsage>('/api/organization/my/plan-usage', { signal }).catch(() => undefined);
  if (signal.aborted) return;
  if (!usage?.plan) {
    section.hidden = true;
    section.dataset.loaded = 'true';
    return;
  }
  body.replaceChildren(
    el('p', { id: 'plan-limits-name' }, 'Plan: ', el('strong', {}, usage.plan.name), ` (figures of ${usage.month}, UTC)`),
    el(
      'div',
      // Focusable: a keyboard can scroll the table sideways on a phone.
      { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'plan-limits-title' },
      el(
        'table',
        { class: 'plain-table', id: 'plan-limits-table' },
        el('caption', { class: 'sr-only' }, `Limits of the plan ${usage.plan.name} and their use`),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { scope: 'col' }, 'Limit'),
            el('th', { scope: 'col', class: 'number' }, 'Used'),
            el('th', { scope: 'col', class: 'number' }, 'Allowed'),
            el('th', { scope: 'col' }, 'Used share'),
          ),
        ),
        el('tbody', {}, ...lines(usage).map(row)),
      ),
    ),
  );
  section.dataset.planId = usage.plan.id;
  section.hidden = false;
  section.dataset.loaded = 'true';
}
