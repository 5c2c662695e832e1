/**
 * The organization's monthly AI budget: its limit, and whether new chats stop at it
 * (`PUT /api/ai/org-usage/budget` with `enforce`; `update` on `organization`). Alerts by email go
 * at the default thresholds.
 */
import { ApiError } from '../api.ts';
import { apiLimits } from '../api-types.generated.ts';
import type { Budgets } from '../types.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';
import { NO_ORGANIZATION_UPDATE } from './api-keys.ts';

export async function renderBudget(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const status = statusLine('budget-status');
  const facts = el('p', { id: 'budget-state' });
  const limit = field('budget-limit', 'Monthly limit (USD)', {
    type: 'number',
    min: String(apiLimits['PUT /ai/org-usage/budget'].body.monthlyLimitUsd.minimum),
    step: '0.01',
    inputmode: 'decimal',
    required: '',
  });
  const enforce = el('input', {
    type: 'checkbox',
    id: 'budget-enforce',
    name: 'budget-enforce',
    'aria-describedby': 'budget-enforce-help',
  });
  const save = el('button', { type: 'submit' }, 'Save budget');
  const remove = el('button', { type: 'button', class: 'danger' }, 'Remove budget');
  const form = el(
    'form',
    { id: 'budget-form', novalidate: '', 'aria-label': 'Set the monthly budget' },
    limit.block,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'budget-enforce' }, enforce, ' Stop new chats at the limit'),
      el(
        'p',
        { id: 'budget-enforce-help', class: 'note' },
        'Chats already answering finish; usage reported by your own runtimes is always recorded.',
      ),
    ),
    el('div', { class: 'actions' }, save, remove),
  );
  const section = card('budget', 'Monthly AI budget', status, facts, form);
  root.append(section);

  const reload = async () => {
    try {
      // The list form: none is an empty list, not a 404 the browser would log as a failure.
      const [budget] = (await api<Budgets>('/api/ai/org-usage/budgets', { signal })).budgets;
      if (!budget) {
        facts.textContent = 'No budget: spend is not limited.';
        remove.hidden = true;
        return say(status, '', 'ok');
      }
      limit.input.value = String(budget.monthlyLimitUsd);
      enforce.checked = budget.enforce;
      remove.hidden = false;
      facts.textContent = `$${budget.spentUsd.toFixed(2)} spent in ${budget.month} (UTC) of $${budget.monthlyLimitUsd.toFixed(2)}. ${
        budget.enforce ? 'New chats stop at the limit.' : 'The limit only sends alerts.'
      }`;
      section.dataset.enforce = String(budget.enforce);
      say(status, '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      say(status, describeError(error));
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const monthlyLimitUsd = Number(limit.input.value);
    if (!(monthlyLimitUsd >= 0.01)) return say(status, 'The limit must be at least $0.01.');
    save.disabled = true;
    api('/api/ai/org-usage/budget', { method: 'PUT', body: { monthlyLimitUsd, enforce: enforce.checked } })
      .then(async () => {
        await reload();
        say(status, 'Saved.', 'ok');
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 403) return say(status, NO_ORGANIZATION_UPDATE);
        say(status, describeError(error));
      })
      .finally(() => {
        save.disabled = false;
      });
  });
  remove.addEventListener('click', () => {
    api('/api/ai/org-usage/budget', { method: 'DELETE' })
      .then(async () => {
        await reload();
        say(status, 'Removed.', 'ok');
      })
      .catch((error: unknown) => say(status, describeError(error)));
  });
  await reload();
}
