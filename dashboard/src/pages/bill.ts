/**
 * The agency's bill of a UTC month on the Clients page (`GET /api/agency/billing?month=YYYY-MM`):
 * per business its plan's price, the platform-key usage cost, the markup, the billed usage and the
 * total, the totals below, whether the month is over; and the same lines as a CSV file (the same
 * request with `Accept: text/csv`, saved by the browser).
 */
import type { ApiResponse } from '../api-types.generated.ts';
import { api, apiText } from '../authed.ts';
import { el, formatInteger } from '../format.ts';
import { describeError, say, statusLine } from '../ui.ts';

type Bill = ApiResponse<'GET /agency/billing'>;

/** Cents, as the bill rounds them. */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
/** The current UTC month, `YYYY-MM`. */
const thisMonth = () => new Date().toISOString().slice(0, 7);

/**
 * Fills `section` with the bill of the agency `organizationId` (the acting workspace is never used);
 * answers a function that reads the chosen month's bill again (after a client changed plans).
 */
export async function renderBill(
  section: HTMLElement,
  organizationId: string | undefined,
  signal: AbortSignal,
): Promise<() => Promise<void>> {
  const month = el('input', { type: 'month', id: 'bill-month', name: 'bill-month', max: thisMonth(), required: '' });
  month.value = thisMonth();
  const download = el('button', { type: 'button', id: 'bill-csv' }, 'Download CSV');
  const status = statusLine('bill-status');
  const rows = el('tbody', { id: 'bill-rows' });
  const totals = el('tfoot', { id: 'bill-totals' });
  const caption = el('caption', { class: 'sr-only' }, 'Bill');
  const headings = ['Business', 'Plan', 'Plan price', 'Usage cost', 'Markup', 'Usage billed', 'Total'];
  const table = el(
    'table',
    { class: 'plain-table', id: 'bill-table' },
    caption,
    el('thead', {}, el('tr', {}, ...headings.map((text, i) => el('th', { scope: 'col', ...(i >= 2 ? { class: 'number' } : {}) }, text)))),
    rows,
    totals,
  );
  section.append(
    el('h2', { id: 'bill-title' }, 'The month’s bill'),
    el(
      'div',
      { class: 'bill-controls' },
      el('div', { class: 'field' }, el('label', { for: 'bill-month' }, 'Month (UTC)'), month),
      el('div', { class: 'actions' }, download),
    ),
    status,
    // Focusable: a keyboard can scroll the lines sideways on a phone.
    el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'bill-title' }, table),
  );
  const number = (text: string) => el('td', { class: 'number' }, text);

  const load = async () => {
    if (!/^\d{4}-\d{2}$/.test(month.value)) return say(status, 'Choose a month.');
    delete table.dataset.loaded;
    try {
      const bill = await api<Bill>('/api/agency/billing', { query: { month: month.value }, organizationId, signal });
      caption.textContent = `Bill of ${bill.month}`;
      rows.replaceChildren(
        ...bill.lines.map((line) =>
          el(
            'tr',
            { 'data-business-id': line.businessId },
            el('th', { scope: 'row' }, line.businessName),
            el('td', {}, line.planName ?? 'No plan'),
            number(usd.format(line.planPriceUsd)),
            number(usd.format(line.usageCostUsd)),
            number(`${formatInteger(line.usageMarkupPercent)}%`),
            number(usd.format(line.usageBilledUsd)),
            number(usd.format(line.totalUsd)),
          ),
        ),
      );
      totals.replaceChildren(
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, 'Totals'),
          el('td', {}, ''),
          number(usd.format(bill.totals.planPriceUsd)),
          number(usd.format(bill.totals.usageCostUsd)),
          el('td', {}, ''),
          number(usd.format(bill.totals.usageBilledUsd)),
          number(usd.format(bill.totals.totalUsd)),
        ),
      );
      table.dataset.loaded = 'true';
      table.dataset.month = bill.month;
      table.dataset.final = String(bill.final);
      say(
        status,
        `${bill.final ? 'Final' : 'Still running: the figures grow until the month ends'} (${bill.month}, UTC). ` +
          `${formatInteger(bill.lines.length)} ${bill.lines.length === 1 ? 'business' : 'businesses'}, ${usd.format(bill.totals.totalUsd)} in all.`,
        'ok',
      );
    } catch (error) {
      if (signal.aborted) return;
      say(status, describeError(error, 'read on plan'));
    }
  };
  month.addEventListener('change', () => void load());

  download.addEventListener('click', () => {
    const chosen = month.value;
    if (!/^\d{4}-\d{2}$/.test(chosen)) return say(status, 'Choose a month.');
    download.disabled = true;
    apiText('/api/agency/billing', 'text/csv', { query: { month: chosen }, organizationId })
      .then(({ text, type }) => save(new Blob([text], { type }), `bill-${chosen}.csv`))
      .catch((error: unknown) => say(status, describeError(error, 'read on plan')))
      .finally(() => {
        download.disabled = false;
      });
  });
  await load();
  return load;
}

/** Saves `blob` as a file named `name` (the browser's download). */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: name, hidden: '' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
