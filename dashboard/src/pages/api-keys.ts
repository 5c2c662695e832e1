/**
 * The organization's API keys (for usage ingestion from other runtimes): create (the key is
 * shown once, with a copy button), list, delete. All three need `update` on `organization`.
 */
import { ApiError } from '../api.ts';
import { apiLimits, type ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { el } from '../format.ts';
import { card, describeError, field, say, statusLine } from '../ui.ts';

type ApiKey = ApiResponse<'GET /api-keys'>['apiKeys'][number];

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
export const NO_ORGANIZATION_UPDATE =
  'Your account lacks the update grant on organization, which API keys and the provider key need. Ask an owner of your organization.';

export async function renderApiKeys(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const status = statusLine('api-keys-status');
  const list = el('ul', { class: 'api-keys', id: 'api-key-list' });
  const name = field(
    'api-key-name',
    'Name',
    { maxlength: String(apiLimits['POST /api-keys'].body.name.maxLength), required: '' },
    'Scope: usage:write (send usage events and traces).',
  );
  const form = el('form', { id: 'api-key-form', novalidate: '', 'aria-label': 'Create an API key' }, name.block);
  const submit = el('button', { type: 'submit' }, 'Create key');
  form.append(el('div', { class: 'actions' }, submit));
  const created = el('div', { id: 'api-key-created', 'aria-live': 'polite' });
  const section = card('api-keys', 'API keys', status, created, list, form);
  root.append(section);

  const reload = async () => {
    try {
      const { apiKeys } = await api<ApiResponse<'GET /api-keys'>>('/api/api-keys', { signal });
      list.replaceChildren(...apiKeys.map((key) => keyItem(key, status, reload)));
      say(status, apiKeys.length === 0 ? 'No API keys yet.' : '', 'ok');
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.status === 403) {
        form.hidden = true;
        say(status, NO_ORGANIZATION_UPDATE);
        section.dataset.state = 'forbidden';
        return;
      }
      say(status, describeError(error));
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = name.input.value.trim();
    if (!chosen) return say(status, 'Give the key a name.');
    submit.disabled = true;
    api<ApiResponse<'POST /api-keys'>>('/api/api-keys', { method: 'POST', body: { name: chosen, scopes: ['usage:write'] } })
      .then(async (answer) => {
        name.input.value = '';
        showOnce(created, answer.name, answer.key);
        await reload();
      })
      .catch((error: unknown) => say(status, describeError(error)))
      .finally(() => {
        submit.disabled = false;
      });
  });
  await reload();
}

/** The new key, this once: a read-only field, a Copy button, and the warning that it will not be shown again. */
function showOnce(container: HTMLElement, name: string, key: string): void {
  const value = el('input', { id: 'api-key-value', readonly: '', value: key, 'aria-label': `The key ${name}`, spellcheck: 'false' });
  const copy = el('button', { type: 'button' }, 'Copy');
  const copied = el('span', { role: 'status' });
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(key).then(
      () => (copied.textContent = 'Copied.'),
      () => {
        value.select();
        copied.textContent = 'Select the key and copy it (Ctrl+C).';
      },
    );
  });
  container.replaceChildren(
    el(
      'div',
      { class: 'secret' },
      el('p', { class: 'note warn' }, `Key ${name}: copy it now, it will not be shown again.`),
      value,
      copy,
      copied,
    ),
  );
  value.focus();
  value.select();
}

function keyItem(key: ApiKey, status: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const remove = el('button', { type: 'button', class: 'danger', 'aria-label': `Delete the key ${key.name}` }, 'Delete');
  remove.addEventListener('click', () => {
    remove.disabled = true;
    api(`/api/api-keys/${key.id}`, { method: 'DELETE' })
      .then(reload)
      .catch((error: unknown) => {
        remove.disabled = false;
        say(status, describeError(error));
      });
  });
  return el(
    'li',
    { 'data-key-id': key.id },
    el('strong', {}, key.name),
    el('code', {}, `${key.prefix}…`),
    el(
      'span',
      { class: 'note' },
      `created ${dateTime.format(new Date(key.createdAt))}, ${key.lastUsedAt ? `last used ${dateTime.format(new Date(key.lastUsedAt))}` : 'never used'}`,
    ),
    remove,
  );
}
