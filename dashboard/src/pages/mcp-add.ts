/**
 * Adding an MCP server from the catalog: pick an entry, then one of its variants (free, API key,
 * OAuth); an API-key variant's credential fields come from its schema (label, kind, required,
 * placeholder, help, default). A 400 is shown beside the field it names.
 */
import { ApiError } from '../api.ts';
import { apiLimits } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import type { CatalogEntry, CatalogVariant } from '../console-types.ts';
import { el } from '../format.ts';
import { describeError, field, say, statusLine } from '../ui.ts';

const VARIANT_TEXT: Record<CatalogVariant['type'], string> = {
  free: 'No sign-in',
  apikey: 'API key',
  oauth: 'OAuth (connect after adding)',
};

export async function renderAddForm(
  container: HTMLElement,
  base: string,
  signal: AbortSignal,
  onAdded: () => Promise<void>,
): Promise<void> {
  const status = statusLine('add-status');
  let entries: CatalogEntry[];
  try {
    entries = (await api<CatalogEntry[]>('/api/available-mcps', { query: { limit: '100' }, signal })).filter((entry) => entry.isActive);
  } catch (error) {
    say(status, describeError(error));
    container.append(status);
    return;
  }
  if (entries.length === 0) {
    container.append(el('p', { class: 'note' }, 'The catalog is empty.'));
    return;
  }
  const entrySelect = el(
    'select',
    { id: 'add-entry', name: 'entry' },
    ...entries.map((entry) => el('option', { value: entry.id }, entry.name)),
  );
  const name = field('add-name', 'Name shown for this agent', {
    maxlength: String(apiLimits['POST /ai/agents/:agentId/mcp-servers'].body.name.maxLength),
    required: '',
  });
  const variants = el('fieldset', { class: 'variants' });
  const credentials = el('div', { class: 'credentials' });
  const submit = el('button', { type: 'submit' }, 'Add server');
  const form = el(
    'form',
    { id: 'add-server-form', novalidate: '' },
    el('div', { class: 'field' }, el('label', { for: 'add-entry' }, 'Catalog entry'), entrySelect),
    name.block,
    variants,
    credentials,
    el('div', { class: 'actions' }, submit),
    status,
  );
  container.append(form);

  const entry = () => entries.find((candidate) => candidate.id === entrySelect.value) ?? entries[0]!;
  const variant = () => {
    const checked = variants.querySelector<HTMLInputElement>('input[name="variant"]:checked');
    return entry().variants.find((candidate) => candidate.type === checked?.value) ?? entry().variants[0]!;
  };
  const showCredentials = () => {
    credentials.replaceChildren(
      ...variant().credentialSchema.fields.map((spec) => {
        const attributes: Record<string, string> = {
          type: spec.type === 'text' ? 'text' : 'password',
          'data-key': spec.key,
          autocomplete: 'off',
          ...(spec.required ? { required: '', 'aria-required': 'true' } : {}),
          ...(spec.placeholder ? { placeholder: spec.placeholder } : {}),
          ...(spec.default ? { value: spec.default } : {}),
        };
        const { block } = field(`credential-${spec.key}`, `${spec.label}${spec.required ? '' : ' (optional)'}`, attributes, spec.helpText);
        block.append(el('p', { class: 'error field-error', id: `credential-${spec.key}-error`, hidden: '' }));
        return block;
      }),
    );
  };
  const showVariants = () => {
    const current = entry();
    name.input.value = current.name;
    variants.replaceChildren(
      el('legend', {}, 'Variant'),
      ...current.variants.map((option, index) => {
        const radio = el('input', { type: 'radio', name: 'variant', id: `variant-${option.type}`, value: option.type });
        radio.checked = index === 0;
        radio.addEventListener('change', showCredentials);
        return el('label', { for: `variant-${option.type}`, class: 'choice' }, radio, ` ${VARIANT_TEXT[option.type]}`);
      }),
    );
    showCredentials();
  };
  entrySelect.addEventListener('change', showVariants);
  showVariants();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = variant();
    const values: Record<string, string> = {};
    for (const input of credentials.querySelectorAll<HTMLInputElement>('input[data-key]')) {
      if (input.value !== '') values[input.dataset.key ?? ''] = input.value;
    }
    for (const note of credentials.querySelectorAll<HTMLElement>('.field-error')) note.hidden = true;
    const missing = chosen.credentialSchema.fields.filter((spec) => spec.required && !values[spec.key]);
    if (missing.length > 0) {
      for (const spec of missing) markField(credentials, spec.key, 'is required');
      say(status, `Fill in: ${missing.map((spec) => spec.label).join(', ')}.`);
      return;
    }
    submit.disabled = true;
    say(status, 'Adding…', 'ok');
    api(base, {
      method: 'POST',
      body: {
        name: name.input.value.trim(),
        availableMcpId: entry().id,
        variantType: chosen.type,
        ...(chosen.credentialSchema.fields.length > 0 ? { credentials: values } : {}),
      },
    })
      .then(async () => {
        say(status, `Added ${name.input.value.trim()}.`, 'ok');
        for (const input of credentials.querySelectorAll<HTMLInputElement>('input[type="password"]')) input.value = '';
        await onAdded();
      })
      .catch((error: unknown) => {
        for (const issue of error instanceof ApiError ? error.issues : []) {
          const at = issue.path.indexOf('credentials');
          if (at >= 0 && issue.path[at + 1]) markField(credentials, issue.path[at + 1]!, issue.message);
        }
        say(status, describeError(error, 'update on ai.agent'));
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
}

function markField(container: HTMLElement, key: string, message: string): void {
  const note = container.querySelector<HTMLElement>(`#credential-${CSS.escape(key)}-error`);
  const input = container.querySelector<HTMLInputElement>(`#credential-${CSS.escape(key)}`);
  if (!note || !input) return;
  note.textContent = message;
  note.hidden = false;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', `${input.getAttribute('aria-describedby') ?? ''} ${note.id}`.trim());
}
