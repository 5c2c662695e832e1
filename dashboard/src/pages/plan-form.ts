/**
 * The Plans page's form: one form creates a plan (`POST /api/plans`) or edits the one chosen
 * (`PATCH /api/plans/:planId`): its name, whether businesses may register on it (public) or be put
 * on it (active), its monthly price, its markup on usage and its five limits (empty: no limit).
 * Guard 2's 409 is said in words: the last active public plan stays while businesses may register.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import type { api } from '../authed.ts';
import { el } from '../format.ts';
import { describeError, field, say } from '../ui.ts';
import { errorCodeOf } from './form-parts.ts';

export type Plan = ApiResponse<'GET /plans'>[number];
type Limits = Plan['limits'];
export type InAgency = <T>(path: string, options?: Parameters<typeof api>[1]) => Promise<T>;

/** Guard 2 (`PLANS.LAST_ACTIVE_PUBLIC_PLAN`) in words. */
export const LAST_ACTIVE_PUBLIC_PLAN =
  'This is your last active public plan, and businesses may register themselves: they would have no plan to register on. ' +
  'Make another plan active and public first, or turn business self-registration off.';

/** The limits as the form shows them: label, and whether the figure may have cents. */
const LIMITS: [keyof Limits, string, string][] = [
  ['maxAgents', 'plan-max-agents', 'Agents'],
  ['maxUsers', 'plan-max-users', 'Staff users'],
  ['maxEndUserMessagesPerMonth', 'plan-max-messages', 'End-user messages per month'],
  ['maxDocumentsMb', 'plan-max-documents', 'Documents (MB)'],
  ['monthlyUsageUsd', 'plan-max-usage', 'Usage per month (USD)'],
];

const checkbox = (id: string, label: string) => {
  const input = el('input', { type: 'checkbox', id, name: id });
  return { input, block: el('label', { for: id, class: 'check' }, input, label) };
};

export function planForm(inAgency: InAgency, onSaved: (plan: Plan) => Promise<void>) {
  const heading = el('h3', { id: 'plan-form-title' }, 'New plan');
  const name = field('plan-name', 'Name', { required: '', maxlength: '200', autocomplete: 'off' });
  const price = field('plan-price', 'Price per month (USD)', {
    type: 'number',
    min: '0',
    max: '1000000',
    step: '0.01',
    inputmode: 'decimal',
  });
  const markup = field(
    'plan-markup',
    'Markup on usage (%)',
    { type: 'number', min: '0', max: '1000', step: '1', inputmode: 'numeric' },
    'Added to the platform-key usage cost on the bill.',
  );
  const isPublic = checkbox('plan-public', 'Public: businesses may register themselves on it');
  const isActive = checkbox('plan-active', 'Active: businesses can be on it');
  const limits = LIMITS.map(([key, id, label]) => ({
    key,
    ...field(id, label, {
      type: 'number',
      min: key === 'monthlyUsageUsd' ? '0.01' : '1',
      step: key === 'monthlyUsageUsd' ? '0.01' : '1',
      inputmode: key === 'monthlyUsageUsd' ? 'decimal' : 'numeric',
    }),
  }));
  const submit = el('button', { type: 'submit' }, 'Create plan');
  const cancel = el('button', { type: 'button' }, 'Cancel');
  cancel.hidden = true;
  const said = el('p', { id: 'plan-said', role: 'status', 'aria-live': 'polite' });
  const form = el(
    'form',
    { id: 'plan-form', novalidate: '', 'aria-labelledby': 'plan-form-title' },
    heading,
    el('div', { class: 'grid-fields' }, name.block, price.block, markup.block),
    el('div', { class: 'field checks' }, isPublic.block, isActive.block),
    el(
      'fieldset',
      { class: 'field', 'aria-describedby': 'plan-limits-help' },
      el('legend', {}, 'Limits'),
      el('p', { id: 'plan-limits-help', class: 'note' }, 'Leave a limit empty for no limit.'),
      el('div', { class: 'grid-fields' }, ...limits.map((limit) => limit.block)),
    ),
    el('div', { class: 'actions' }, submit, cancel),
    said,
  );
  let editing: Plan | undefined;

  const show = (plan: Plan | undefined) => {
    editing = plan;
    heading.textContent = plan ? `Edit ${plan.name}` : 'New plan';
    submit.textContent = plan ? 'Save changes' : 'Create plan';
    cancel.hidden = !plan;
    name.input.value = plan?.name ?? '';
    price.input.value = plan ? String(plan.priceUsdPerMonth) : '0';
    markup.input.value = plan ? String(plan.usageMarkupPercent) : '0';
    isPublic.input.checked = plan?.isPublic ?? true;
    isActive.input.checked = plan?.isActive ?? true;
    for (const limit of limits) limit.input.value = plan?.limits[limit.key] == null ? '' : String(plan.limits[limit.key]);
  };
  show(undefined);
  cancel.addEventListener('click', () => {
    show(undefined);
    say(said, '', 'ok');
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const planName = name.input.value.trim();
    if (!planName) return say(said, 'Enter the plan’s name.');
    const numbers = [price.input, markup.input, ...limits.map((limit) => limit.input)];
    const bad = numbers.find((input) => input.value.trim() !== '' && !Number.isFinite(Number(input.value)));
    if (bad) return say(said, `${bad.labels?.[0]?.textContent ?? 'A figure'} must be a number.`);
    const body = {
      name: planName,
      isPublic: isPublic.input.checked,
      isActive: isActive.input.checked,
      priceUsdPerMonth: Number(price.input.value || 0),
      usageMarkupPercent: Number(markup.input.value || 0),
      limits: Object.fromEntries(limits.map((limit) => [limit.key, limit.input.value.trim() === '' ? null : Number(limit.input.value)])),
    };
    const was = editing;
    submit.disabled = true;
    inAgency<Plan>(was ? `/api/plans/${was.id}` : '/api/plans', { method: was ? 'PATCH' : 'POST', body })
      .then(async (saved) => {
        show(undefined);
        say(said, was ? `${saved.name} was saved.` : `${saved.name} was created.`, 'ok');
        await onSaved(saved);
      })
      .catch((error: unknown) => {
        const code = errorCodeOf(error);
        if (code === 'PLANS.LAST_ACTIVE_PUBLIC_PLAN') return say(said, LAST_ACTIVE_PUBLIC_PLAN);
        say(said, describeError(error, was ? 'update on plan' : 'create on plan'));
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  return {
    form,
    /** Fills the form with `plan` to edit it, and brings it into view. */
    edit(plan: Plan) {
      show(plan);
      say(said, '', 'ok');
      name.input.focus();
    },
  };
}
