import { LRUCache } from 'lru-cache';
import { listBillLines, type BillLine } from '../../sql/billing.ts';
import { ANALYTICS_CACHE_TTL_SECONDS } from '../analytics/cache.ts';
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

/** Lines of kept bills, at most (about 300 bytes each). */
const MAX_KEPT_LINES = 50_000;
const kept = new WeakMap<AppDeps, LRUCache<string, Bill>>();

/**
 * Bills of ended months, per app instance, by `${organizationId}/${YYYY-MM}`. An ended month's
 * lines change only by usage imported late into it or a business renamed, so its bill is kept as
 * long as an analytics answer (5 minutes on the app's clock), then read again; the running month's
 * bill is never kept. Bounded by lines (least recently used dropped first), whatever the number of
 * agencies and months asked for.
 */
function endedBills(deps: AppDeps): LRUCache<string, Bill> {
  let cache = kept.get(deps);
  if (!cache) {
    cache = new LRUCache<string, Bill>({
      maxSize: MAX_KEPT_LINES,
      // Its lines and one for its totals, so a bill without a line still counts.
      sizeCalculation: (bill) => bill.lines.length + 1,
      ttl: ANALYTICS_CACHE_TTL_SECONDS * 1000,
      perf: { now: () => deps.clock().getTime() },
      ttlResolution: 0,
    });
    kept.set(deps, cache);
  }
  return cache;
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

/**
 * The acting agency's bill of `month` (default: the current UTC month). `final` once the month is
 * over; an ended month's bill is kept for 5 minutes (`endedBills`).
 */
export async function agencyBill(deps: AppDeps, organizationId: string, month: string | undefined): Promise<Bill> {
  const now = deps.clock();
  const name = month ?? monthOf(now);
  const { from, to } = monthRange(name);
  const final = now.getTime() >= to.getTime();
  if (!final) return billOf(name, false, await listBillLines(deps.db, { organizationId, from, to, at: now }));
  const key = `${organizationId}/${name}`;
  const known = endedBills(deps).get(key);
  if (known) return known;
  const bill = billOf(name, true, await listBillLines(deps.db, { organizationId, from, to, at: to }));
  endedBills(deps).set(key, bill);
  return bill;
}

/** The bill of `rows`: lines in dollars, totals summed in cents. */
function billOf(name: string, final: boolean, rows: readonly BillLine[]): Bill {
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
