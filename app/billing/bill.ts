import { listBillLines, type BillLine } from '../../sql/billing.ts';
import type { AppDeps } from '../core/deps.ts';
import { ValidationError } from '../core/errors.ts';
import { dollarsOf } from '../plans/money.ts';

/*
 * The agency's bill of a UTC month (docs/billing.md, "The bill"): per business the plan's price,
 * the platform-key usage cost, the markup, the billed usage and the line's total; every amount
 * rounded half-up to cents per line (in SQL), the line's total and the bill's totals sums of those
 * rounded amounts, in integer cents until they are shown.
 */

export type Bill = {
  month: string;
  final: boolean;
  currency: 'USD';
  lines: {
    businessId: string;
    businessName: string;
    planId: string | null;
    planName: string | null;
    planPriceUsd: number;
    usageCostUsd: number;
    usageMarkupPercent: number;
    usageBilledUsd: number;
    totalUsd: number;
  }[];
  totals: { planPriceUsd: number; usageCostUsd: number; usageBilledUsd: number; totalUsd: number };
};

/** The UTC month `YYYY-MM` names: `[from, to)`; a 400 for a month before 2000 (usage cannot be older). */
export function monthRange(month: string): { from: Date; to: Date } {
  const [year, number] = month.split('-').map(Number) as [number, number];
  if (year < 2000) throw new ValidationError([{ path: ['query', 'month'], message: 'must be a month from 2000-01' }]);
  return { from: new Date(Date.UTC(year, number - 1, 1)), to: new Date(Date.UTC(year, number, 1)) };
}

/** `now`'s UTC month as `YYYY-MM`. */
export const monthOf = (now: Date) => now.toISOString().slice(0, 7);

const lineOf = (row: BillLine) => ({
  businessId: row.businessId,
  businessName: row.businessName,
  planId: row.planId,
  planName: row.planName,
  priceCents: row.priceCents,
  usageCostCents: row.usageCostCents,
  usageMarkupPercent: row.usageMarkupPercent,
  usageBilledCents: row.usageBilledCents,
  totalCents: row.priceCents + row.usageBilledCents,
});

/** The acting agency's bill of `month` (default: the current UTC month). `final` once the month is over. */
export async function agencyBill(deps: AppDeps, organizationId: string, month: string | undefined): Promise<Bill> {
  const now = deps.clock();
  const name = month ?? monthOf(now);
  const { from, to } = monthRange(name);
  const final = now.getTime() >= to.getTime();
  const rows = await listBillLines(deps.db, { organizationId, from, to, at: final ? to : now });
  const lines = rows.map(lineOf);
  const sum = (pick: (line: (typeof lines)[number]) => number) => dollarsOf(lines.reduce((total, line) => total + pick(line), 0));
  return {
    month: name,
    final,
    currency: 'USD',
    lines: lines.map((line) => ({
      businessId: line.businessId,
      businessName: line.businessName,
      planId: line.planId,
      planName: line.planName,
      planPriceUsd: dollarsOf(line.priceCents),
      usageCostUsd: dollarsOf(line.usageCostCents),
      usageMarkupPercent: line.usageMarkupPercent,
      usageBilledUsd: dollarsOf(line.usageBilledCents),
      totalUsd: dollarsOf(line.totalCents),
    })),
    totals: {
      planPriceUsd: sum((line) => line.priceCents),
      usageCostUsd: sum((line) => line.usageCostCents),
      usageBilledUsd: sum((line) => line.usageBilledCents),
      totalUsd: sum((line) => line.totalCents),
    },
  };
}

/** The CSV columns: the line's field names, in the order of the JSON line. */
const CSV_COLUMNS = [
  'businessId',
  'businessName',
  'planId',
  'planName',
  'planPriceUsd',
  'usageCostUsd',
  'usageMarkupPercent',
  'usageBilledUsd',
  'totalUsd',
] as const;

/**
 * RFC 4180: CRLF line ends, a field quoted when it holds a comma, a quote, CR or LF (a quote
 * doubled inside). A field starting with `=`, `+`, `-` or `@` is also quoted and prefixed with `'`,
 * so a spreadsheet opening the bill never runs a business name as a formula. Money with 2 decimals.
 */
export function billCsv(bill: Bill): string {
  const field = (value: string | number | null): string => {
    if (value === null) return '';
    if (typeof value === 'number') return String(value);
    const text = /^[=+\-@]/.test(value) ? `'${value}` : value;
    return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const money = (value: number) => value.toFixed(2);
  const rows = bill.lines.map((line) =>
    [
      field(line.businessId),
      field(line.businessName),
      field(line.planId),
      field(line.planName),
      money(line.planPriceUsd),
      money(line.usageCostUsd),
      field(line.usageMarkupPercent),
      money(line.usageBilledUsd),
      money(line.totalUsd),
    ].join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].map((row) => `${row}\r\n`).join('');
}
