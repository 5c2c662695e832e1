/**
 * The organization's own model-provider key (BYOK): whether one is set, its last four characters
 * and base URL (the key itself is never answered), set or replace it, remove it.
 */
import { ApiError } from '../api.ts';
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';
import { NO_ORGANIZATION_UPDATE } from './api-keys.ts';

type ProviderKey = ApiResponse<'GET /ai/provider-key'>;

export async function renderProviderKey(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const status = statusLine('provider-key-status');
  const facts = el('p', { id: 'provider-key-state' });
  const apiKey = field('provider-api-key', 'API key', { type: 'password', autocomplete: 'off', required: '' });
  const baseUrl = field(
    'provider-base-url',
    'Base URL (optional)',
    { type: 'url', placeholder: 'https://…' },
    'An OpenAI-compatible endpoint; empty for the default gateway.',
  );
  const save = el('button', { type: 'submit' }, 'Save key');
  const remove = el('button', { type: 'button', class: 'danger' }, 'Remove key');
  const form = el(
    'form',
    { id: 'provider-key-form', novalidate: '', 'aria-label': 'Set the provider key' },
    apiKey.block,
    baseUrl.block,
    el('div', { class: 'actions' }, save, remove),
  );
  const section = card('provider-key', 'Model provider key (BYOK)', status, facts, form);
  root.append(section);

  const reload = async () => {
    try {
      const answer = await api<ProviderKey>('/api/ai/provider-key', { signal });
      section.dataset.configured = String(answer.configured);
      facts.textContent = answer.configured
        ? `Configured: a key ending in ${answer.keyLastFour ?? '????'}${answer.baseUrl ? `, at ${answer.baseUrl}` : ''}. Chats of this organization use it.`
        : "Not configured: chats use the platform's key.";
      remove.hidden = !answer.configured;
      say(status, '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 403) {
        form.hidden = true;
        section.dataset.state = 'forbidden';
        return say(status, NO_ORGANIZATION_UPDATE);
      }
      say(status, describeError(error));
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!apiKey.input.value) return say(status, 'Paste the API key.');
    save.disabled = true;
    const url = baseUrl.input.value.trim();
    api('/api/ai/provider-key', { method: 'PUT', body: { apiKey: apiKey.input.value, ...(url ? { baseUrl: url } : {}) } })
      .then(async () => {
        apiKey.input.value = '';
        await reload();
        say(status, 'Saved.', 'ok');
      })
      .catch((error: unknown) => say(status, describeError(error)))
      .finally(() => {
        save.disabled = false;
      });
  });
  remove.addEventListener('click', () => {
    api('/api/ai/provider-key', { method: 'DELETE' })
      .then(async () => {
        await reload();
        say(status, 'Removed.', 'ok');
      })
      .catch((error: unknown) => say(status, describeError(error)));
  });
  await reload();
}
