/**
 * The agency's clients (`GET /api/agency/businesses`): each business with its plan (changed from
 * here: `PUT /api/agency/businesses/:businessId/plan`), people, agents and this month's turns, cost
 * and billed amount, and "Work in" (the header's switcher, from here); the month's bill (bill.ts);
 * Create a workspace (`POST /api/agency/businesses`: the business and an invitation to its owner);
 * Copy an agent of the agency into one of them (`POST /api/ai/agents/:agentId/copies`). Every call
 * of this page acts in the agency itself, whatever workspace is chosen.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el, formatInteger, formatUsd } from '../format.ts';
import type { PageContext } from '../page.ts';
import { renderWorkspaceBar } from '../switcher.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { errorCodeOf } from './form-parts.ts';
import { show } from '../views.ts';
import { actIn, addBusiness, homeOrganization } from '../workspace.ts';
import { renderBill } from './bill.ts';
import { copyForm } from './agent-copy-form.ts';

type Business = {
  id: string;
  name: string;
  plan: { id: string; name: string } | null;
  users: number;
  agents: number;
  createdAt: string;
  monthToDate: { turns: number; usageCostUsd: number; billedUsd: number };
};
type Plan = ApiResponse<'GET /plans'>[number];
type Created = { business: { id: string; name: string }; invitation: { id: string; email: string; expiresAt: string } };

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const agency = homeOrganization();
  const organizationId = agency?.id;
  const inAgency = <T>(path: string, options: Parameters<typeof api>[1] = {}) => api<T>(path, { ...options, organizationId, signal });
  const status = statusLine('clients-status');
  const rows = el('tbody', { id: 'client-rows' });
  const headings = ['Business', 'Plan', 'People', 'Agents', 'Turns this month', 'Cost this month', 'Billed this month', 'Actions'];
  const table = el(
    'table',
    { class: 'plain-table', id: 'client-list' },
    el('caption', { class: 'sr-only' }, `Clients of ${agency?.name ?? 'the agency'}`),
    el(
      'thead',
      {},
      el('tr', {}, ...headings.map((text, i) => el('th', { scope: 'col', ...(i >= 2 && i <= 6 ? { class: 'number' } : {}) }, text))),
    ),
    rows,
  );
  const create = createForm(inAgency);
  const copy = copyForm(inAgency);
  const bill = el('section', { class: 'card', id: 'bill', 'aria-labelledby': 'bill-title' });
  root.append(
    pageHeading(`Clients of ${agency?.name ?? 'the agency'}`),
    card('clients', 'Client workspaces', status, el('div', { class: 'table-scroll' }, table)),
    bill,
    card('create-workspace', 'Create a workspace', create.form, create.said),
    card('copy-agent', 'Copy an agent into a workspace', copy.form, copy.said),
  );

  let plans: Plan[] = [];
  let reloadBill = async () => {};
  const loadPlans = async () => {
    try {
      plans = (await inAgency<Plan[]>('/api/plans')).filter((p) => p.isActive);
    } catch (error) {
      if (!signal.aborted) say(status, describeError(error, 'read on plan'));
    }
    create.setPlans(plans);
  };
  const move = (business: Business, planId: string) =>
    inAgency(`/api/agency/businesses/${business.id}/plan`, { method: 'PUT', body: { planId } })
      .then(async () => {
        await Promise.all([reload(), reloadBill()]);
        say(status, `${business.name} is on ${plans.find((p) => p.id === planId)?.name ?? 'the new plan'} from now.`, 'ok');
      })
      .catch((error: unknown) => say(status, planMoveError(error)));

  const reload = async () => {
    try {
      const { businesses } = await inAgency<{ businesses: Business[] }>('/api/agency/businesses', { query: { limit: '100' } });
      for (const business of businesses) addBusiness({ id: business.id, name: business.name });
      renderWorkspaceBar(true);
      rows.replaceChildren(...businesses.map((business) => businessRow(business, plans, move)));
      copy.setTargets(businesses);
      table.dataset.loaded = 'true';
      say(status, businesses.length === 0 ? 'No client workspaces yet: create the first below.' : '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      say(status, describeError(error, 'read on organization'));
    }
  };
  create.onCreated = reload;
  await Promise.all([
    loadPlans().then(reload),
    copy.loadAgents(),
    renderBill(bill, organizationId, signal).then((load) => {
      reloadBill = load;
    }),
  ]);
}

/** A refused plan move in words. */
function planMoveError(error: unknown): string {
  const code = errorCodeOf(error);
  if (code === 'PLANS.PLAN_NOT_AVAILABLE') return 'That plan is not available any more (inactive or removed): choose another.';
  if (code === 'AGENCY.BUSINESS_NOT_FOUND') return 'That business is no longer one of your clients.';
  return describeError(error, 'update on plan');
}

/** The business's plan, and a choice of the agency's active plans to move it to. */
function planCell(business: Business, plans: Plan[], move: (business: Business, planId: string) => Promise<void>): HTMLElement {
  const cell = el('td', {}, el('span', { class: 'plan-name' }, business.plan?.name ?? 'No plan'));
  const others = plans.filter((p) => p.id !== business.plan?.id);
  if (others.length === 0) return cell;
  const choice = el(
    'select',
    { 'aria-label': `New plan for ${business.name}`, class: 'plan-choice' },
    ...others.map((p) => el('option', { value: p.id }, p.name)),
  );
  const change = el('button', { type: 'button', 'aria-label': `Change plan for ${business.name}` }, 'Change plan');
  change.addEventListener('click', () => {
    change.disabled = true;
    void move(business, choice.value).finally(() => {
      change.disabled = false;
    });
  });
  cell.append(el('div', { class: 'plan-cell' }, choice, change));
  return cell;
}

function businessRow(business: Business, plans: Plan[], move: (business: Business, planId: string) => Promise<void>): HTMLTableRowElement {
  const work = el('button', { type: 'button' }, `Work in ${business.name}`);
  work.addEventListener('click', () => {
    actIn(business.id);
    renderWorkspaceBar(true);
    location.hash = '#/agents';
  });
  const number = (text: string) => el('td', { class: 'number' }, text);
  return el(
    'tr',
    { 'data-business-id': business.id },
    el('th', { scope: 'row' }, business.name),
    planCell(business, plans, move),
    number(formatInteger(business.users)),
    number(formatInteger(business.agents)),
    number(formatInteger(business.monthToDate.turns)),
    number(formatUsd(business.monthToDate.usageCostUsd)),
    number(formatUsd(business.monthToDate.billedUsd)),
    el('td', {}, work),
  );
}

type InAgency = <T>(path: string, options?: Parameters<typeof api>[1]) => Promise<T>;

function createForm(inAgency: InAgency) {
  const name = field('workspace-name', 'Business name', { required: '', maxlength: '200' });
  const plan = el('select', { id: 'workspace-plan', name: 'workspace-plan' });
  const ownerName = field('workspace-owner-name', "Owner's name", { required: '', maxlength: '200', autocomplete: 'off' });
  const ownerEmail = field('workspace-owner-email', "Owner's email", {
    type: 'email',
    required: '',
    maxlength: '254',
    autocomplete: 'off',
  });
  const submit = el('button', { type: 'submit' }, 'Create and invite the owner');
  const form = el(
    'form',
    { id: 'workspace-form', novalidate: '', 'aria-label': 'Create a client workspace' },
    name.block,
    el('div', { class: 'field' }, el('label', { for: 'workspace-plan' }, 'Plan'), plan),
    ownerName.block,
    ownerEmail.block,
    el('div', { class: 'actions' }, submit),
  );
  const said = el('p', { id: 'workspace-said', role: 'status', 'aria-live': 'polite' });
  const result = {
    form,
    said,
    onCreated: async () => {},
    setPlans(plans: Plan[]) {
      plan.replaceChildren(...plans.map((p) => el('option', { value: p.id }, p.name)));
    },
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = {
      name: name.input.value.trim(),
      planId: plan.value,
      owner: { name: ownerName.input.value.trim(), email: ownerEmail.input.value.trim() },
    };
    if (!body.name || !body.owner.name || !body.owner.email) return say(said, 'Enter the business name, and its owner’s name and email.');
    submit.disabled = true;
    inAgency<Created>('/api/agency/businesses', { method: 'POST', body })
      .then(async (created) => {
        addBusiness(created.business);
        renderWorkspaceBar(true);
        for (const input of [name.input, ownerName.input, ownerEmail.input]) input.value = '';
        say(
          said,
          `${created.business.name} is ready. The invitation went to ${created.invitation.email}; ` +
            `its link works until ${dateTime.format(new Date(created.invitation.expiresAt))}.`,
          'ok',
        );
        await result.onCreated();
      })
      .catch((error: unknown) => say(said, describeError(error, 'create on organization.member')))
      .finally(() => {
        submit.disabled = false;
      });
  });
  return result;
}
