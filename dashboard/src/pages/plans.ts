/**
 * The agency's plans (`GET /api/plans`, `plan` grants): each with its price, markup and limits, an
 * Edit that fills the form below (plan-form.ts), and whether businesses may register themselves
 * (`PATCH /api/organization/my` `allowBusinessRegistration`). The two registration guards' 409s
 * are said in words: Guard 1 (no active public plan to register on) here, Guard 2 in the form.
 * Every call acts in the agency itself, whatever workspace is chosen.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el, formatInteger } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { homeOrganization } from '../workspace.ts';
import { errorCodeOf } from './form-parts.ts';
import { planForm, type InAgency, type Plan } from './plan-form.ts';

type Organization = ApiResponse<'GET /organization/my'>;

/** Guard 1 (`ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN`) in words. */
export const NO_ACTIVE_PUBLIC_PLAN =
  'Businesses cannot register themselves while no plan is both active and public: make a plan active and public first.';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const limitText = (value: number | null, format: (value: number) => string = formatInteger) =>
  value === null ? 'No limit' : format(value);

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const agency = homeOrganization();
  const inAgency: InAgency = (path, options = {}) => api(path, { ...options, organizationId: agency?.id, signal });
  const status = statusLine('plans-status');
  const rows = el('tbody', { id: 'plan-rows' });
  const headings = [
    'Plan',
    'Public',
    'Active',
    'Price / month',
    'Markup',
    'Agents',
    'Staff users',
    'Messages / month',
    'Documents',
    'Usage / month',
  ];
  const table = el(
    'table',
    { class: 'plain-table', id: 'plan-list' },
    el('caption', { class: 'sr-only' }, `Plans of ${agency?.name ?? 'the agency'}`),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...headings.map((text, i) => el('th', { scope: 'col', ...(i >= 3 ? { class: 'number' } : {}) }, text)),
        el('th', { scope: 'col' }, 'Actions'),
      ),
    ),
    rows,
  );
  const registration = registrationForm(inAgency);
  const form = planForm(inAgency, async () => {
    await reload();
  });
  root.append(
    pageHeading(`Plans of ${agency?.name ?? 'the agency'}`),
    card('plans', 'Plans', status, el('div', { class: 'table-scroll' }, table), form.form),
    card('registration', 'Business self-registration', registration.form, registration.said),
  );

  const planRow = (plan: Plan) => {
    const edit = el('button', { type: 'button', 'aria-label': `Edit ${plan.name}` }, 'Edit');
    edit.addEventListener('click', () => form.edit(plan));
    const number = (text: string) => el('td', { class: 'number' }, text);
    return el(
      'tr',
      { 'data-plan-id': plan.id },
      el('th', { scope: 'row' }, plan.name),
      el('td', {}, plan.isPublic ? 'Public' : 'Private'),
      el('td', {}, plan.isActive ? 'Active' : 'Inactive'),
      number(usd.format(plan.priceUsdPerMonth)),
      number(`${formatInteger(plan.usageMarkupPercent)}%`),
      number(limitText(plan.limits.maxAgents)),
      number(limitText(plan.limits.maxUsers)),
      number(limitText(plan.limits.maxEndUserMessagesPerMonth)),
      number(limitText(plan.limits.maxDocumentsMb, (mb) => `${formatInteger(mb)} MB`)),
      number(limitText(plan.limits.monthlyUsageUsd, (value) => usd.format(value))),
      el('td', {}, edit),
    );
  };

  async function reload(): Promise<void> {
    try {
      const plans = await inAgency<Plan[]>('/api/plans');
      rows.replaceChildren(...plans.map(planRow));
      table.dataset.loaded = 'true';
      say(status, plans.length === 0 ? 'No plans yet: create the first below.' : '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      form.form.hidden = true;
      say(status, describeError(error, 'read on plan'));
    }
  }
  await Promise.all([reload(), registration.load()]);
}

function registrationForm(inAgency: InAgency) {
  const allow = el('input', {
    type: 'checkbox',
    id: 'allow-registration',
    name: 'allow-registration',
    'aria-describedby': 'allow-registration-help',
  });
  const submit = el('button', { type: 'submit' }, 'Save registration');
  const said = el('p', { id: 'registration-said', role: 'status', 'aria-live': 'polite' });
  const form = el(
    'form',
    { id: 'registration-form', novalidate: '', 'aria-label': 'Business self-registration' },
    el('div', { class: 'field' }, el('label', { for: 'allow-registration', class: 'check' }, allow, 'Businesses may register themselves')),
    el(
      'p',
      { id: 'allow-registration-help', class: 'note' },
      'A business that registers itself chooses one of your active public plans (without a choice, the oldest).',
    ),
    el('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    inAgency<Organization>('/api/organization/my', { method: 'PATCH', body: { allowBusinessRegistration: allow.checked } })
      .then((organization) => {
        allow.checked = organization.allowBusinessRegistration;
        say(said, organization.allowBusinessRegistration ? 'Businesses may now register themselves.' : 'Self-registration is off.', 'ok');
      })
      .catch((error: unknown) => {
        if (errorCodeOf(error) === 'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN') {
          allow.checked = false;
          return say(said, NO_ACTIVE_PUBLIC_PLAN);
        }
        say(said, describeError(error, 'update on organization'));
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return {
    form,
    said,
    async load() {
      try {
        allow.checked = (await inAgency<Organization>('/api/organization/my')).allowBusinessRegistration;
      } catch (error) {
        form.hidden = true;
        say(said, describeError(error, 'read on organization'));
      }
    },
  };
}
