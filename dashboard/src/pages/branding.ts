/**
 * The agency's brand (`GET`/`PUT /api/organization/my/branding`, `update` on `organization`): its
 * product name, color, logo (an https URL the browser loads), support email and the hosts its
 * console is served on, with a live preview of the header and the sign-in page as they will look.
 * Saving wears the brand at once (brand.ts). A host another agency has is said in words (409
 * `ORGANIZATION.HOST_TAKEN`). Every call acts in the agency itself, whatever workspace is chosen.
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api } from '../authed.ts';
import { applyBrand, brandMark, httpsUrl, whiteReadsOn } from '../brand.ts';
import { el } from '../format.ts';
import type { PageContext } from '../page.ts';
import { card, describeError, field, pageHeading, say, statusLine } from '../ui.ts';
import { show } from '../views.ts';
import { homeOrganization } from '../workspace.ts';
import { errorCodeOf } from './form-parts.ts';

type Branding = ApiResponse<'GET /organization/my/branding'>;

export const HOST_TAKEN = 'Another agency’s console is already served on one of these hosts: remove it, or ask that agency to give it up.';

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  const agency = homeOrganization();
  const status = statusLine('branding-status');
  const name = field('brand-name', 'Product name', { required: '', maxlength: '60', autocomplete: 'off' });
  const color = field('brand-color', 'Color', { type: 'color' }, 'The header’s edge; links and buttons too when white text reads on it.');
  const logo = field(
    'brand-logo',
    'Logo URL',
    { type: 'url', maxlength: '2048', placeholder: 'https://', autocomplete: 'off' },
    'An https address of an image. Browsers load it; the server never does.',
  );
  const support = field('brand-support', 'Support email', { type: 'email', maxlength: '254', autocomplete: 'off' });
  const hosts = el('textarea', { id: 'brand-hosts', name: 'brand-hosts', rows: '3', 'aria-describedby': 'brand-hosts-help' });
  const submit = el('button', { type: 'submit' }, 'Save brand');
  const said = el('p', { id: 'branding-said', role: 'status', 'aria-live': 'polite' });
  const form = el(
    'form',
    { id: 'branding-form', novalidate: '', 'aria-label': 'Your brand' },
    name.block,
    color.block,
    logo.block,
    support.block,
    el(
      'div',
      { class: 'field' },
      el('label', { for: 'brand-hosts' }, 'Console hosts'),
      hosts,
      el(
        'p',
        { id: 'brand-hosts-help', class: 'note' },
        'Up to 5 host names this console is served on, one a line (console.acme.example). Its sign-in page wears the brand there.',
      ),
    ),
    el('div', { class: 'actions' }, submit),
  );

  const bar = el('div', { class: 'brand-preview-bar', id: 'brand-preview-name' });
  const greeting = el('p', {}, '');
  const sample = el('span', { class: 'preview-button' }, 'Sign in');
  const warnings = el('p', { class: 'note warn', id: 'brand-preview-warnings' });
  const preview = el(
    'div',
    { class: 'brand-preview', id: 'brand-preview', role: 'img', 'aria-label': 'Preview of the console’s header and sign-in page' },
    bar,
    el('div', { class: 'brand-preview-body' }, greeting, sample),
  );
  const current = () => ({
    productName: name.input.value.trim() || 'Agents',
    primaryColor: color.input.value.toLowerCase(),
    logoUrl: logo.input.value.trim() || null,
  });
  const renderPreview = () => {
    const brand = current();
    const logoUrl = httpsUrl(brand.logoUrl);
    bar.replaceChildren(...brandMark({ ...brand, logoUrl }, ' console'));
    greeting.textContent = `Sign in to ${brand.productName}`;
    preview.style.setProperty('--preview-color', brand.primaryColor);
    sample.dataset.readable = String(whiteReadsOn(brand.primaryColor));
    preview.dataset.productName = brand.productName;
    preview.dataset.color = brand.primaryColor;
    const notes = [
      brand.logoUrl && !logoUrl ? 'The logo must be an https URL: it is not shown.' : '',
      whiteReadsOn(brand.primaryColor) ? '' : 'White text is hard to read on this color: links and buttons keep the console’s own.',
    ].filter(Boolean);
    warnings.textContent = notes.join(' ');
  };
  form.addEventListener('input', renderPreview);

  root.append(
    pageHeading(`Brand of ${agency?.name ?? 'the agency'}`),
    // Side by side on a wide screen, so the preview stays in sight while the form is typed in.
    el(
      'div',
      { class: 'branding-layout' },
      card('branding', 'Your brand', status, form, said),
      card('branding-preview', 'Preview', preview, warnings),
    ),
  );

  const fill = (brand: Branding) => {
    name.input.value = brand.productName;
    color.input.value = brand.primaryColor;
    logo.input.value = brand.logoUrl ?? '';
    support.input.value = brand.supportEmail ?? '';
    hosts.value = brand.hosts.join('\n');
    renderPreview();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = {
      productName: name.input.value.trim(),
      primaryColor: color.input.value.toLowerCase(),
      logoUrl: logo.input.value.trim() || null,
      supportEmail: support.input.value.trim() || null,
      hosts: hosts.value.split(/[\s,]+/).filter(Boolean),
    };
    if (!body.productName) return say(said, 'Enter the product name.');
    if (body.logoUrl && !httpsUrl(body.logoUrl)) return say(said, 'The logo must be an https URL.');
    if (body.hosts.length > 5) return say(said, 'At most 5 hosts.');
    submit.disabled = true;
    api<Branding>('/api/organization/my/branding', { method: 'PUT', body, organizationId: agency?.id })
      .then((saved) => {
        fill(saved);
        applyBrand(saved);
        say(said, `Saved: the console wears ${saved.productName} now.`, 'ok');
      })
      .catch((error: unknown) => {
        if (errorCodeOf(error) === 'ORGANIZATION.HOST_TAKEN') return say(said, HOST_TAKEN);
        say(said, describeError(error, 'update on organization'));
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  try {
    fill(await api<Branding>('/api/organization/my/branding', { organizationId: agency?.id, signal }));
    form.dataset.loaded = 'true';
  } catch (error) {
    if (signal.aborted) return;
    form.hidden = true;
    say(status, describeError(error, 'read on organization'));
  }
}
