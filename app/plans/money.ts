import { ValidationError } from '../core/errors.ts';

/*
 * Money in the plans and the bill is exact (docs/billing.md, "The money model"): prices are stored
 * in integer cents, usage costs are PostgreSQL numerics, and a JSON number of dollars is taken
 * only when it has at most two decimals.
 */

/** Whole cents of a JSON dollar amount; a 400 naming `path` when it has more than two decimals. */
export function centsOf(dollars: number, path: string[]): number {
  const cents = Math.round(dollars * 100);
  // Decimal fractions are inexact in binary: 0.29 * 100 is 28.999999999999996. Beyond that, not cents.
  if (Math.abs(cents - dollars * 100) > 1e-6) throw new ValidationError([{ path, message: 'must have at most 2 decimals' }]);
  return cents;
}

/** Dollars as the exact decimal text of whole cents (`1234` -> `"12.34"`), for a numeric column. */
export const dollarsText = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** Cents as a JSON number of dollars (exact to the cent when printed). */
export const dollarsOf = (cents: number) => cents / 100;
