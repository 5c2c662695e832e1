/**
 * Student t distribution: density and tail probabilities.
 *
 * For x ≥ 0 and ν degrees of freedom, with z = ν/(ν + x²):
 *   P(T > x)     = ½ · I_z(ν/2, ½)
 *   P(0 < T < x) = ½ · I_{1−z}(½, ν/2)
 * (Abramowitz & Stegun 26.7.1 with 26.5.27; Numerical Recipes 3rd ed. eq. 6.14.11).
 * Both sides are returned so callers can use whichever is computed without cancellation.
 */
import { lnBeta } from '../special/log-gamma.ts';
import { regularizedBeta } from '../special/incomplete-beta.ts';

/** log(1 + e^u) without overflow. */
function softplus(u: number): number {
  return u > 0 ? u + Math.log1p(Math.exp(-u)) : Math.log1p(Math.exp(u));
}

/** Throws unless ν is a finite positive number. */
export function assertDegreesOfFreedom(df: number): void {
  if (!(Number.isFinite(df) && df > 0)) {
    throw new RangeError(`degrees of freedom must be a finite number > 0 (got ${df})`);
  }
}

/** Tail probabilities at x ≥ 0: `upper` = P(T > x), `central` = P(0 < T < x); upper + central = ½. */
export interface TTails {
  readonly upper: number;
  readonly central: number;
}

/** P(T > x) and P(0 < T < x) for x ≥ 0 (x may be +Infinity). */
export function studentTTails(x: number, df: number): TTails {
  if (x === 0) return { upper: 0.5, central: 0 };
  if (x === Infinity) return { upper: 0, central: 0.5 };
  // ln r = ln(x²/ν), computed in logs so that huge x cannot overflow.
  const lnR = 2 * Math.log(x) - Math.log(df);
  const lnOnePlusR = softplus(lnR);
  const lnZ = -lnOnePlusR; // ln(ν/(ν + x²))
  const lnW = lnR - lnOnePlusR; // ln(x²/(ν + x²))
  const pair = regularizedBeta(df / 2, 0.5, Math.exp(lnZ), Math.exp(lnW), lnZ, lnW);
  return { upper: 0.5 * pair.lower, central: 0.5 * pair.upper };
}

/** Natural log of the density of Student's t at finite x (see {@link studentTDensity}). */
export function studentTLogDensity(x: number, df: number): number {
  const lnOnePlusR = x === 0 ? 0 : softplus(2 * Math.log(Math.abs(x)) - Math.log(df));
  // 1/(√ν·B(ν/2, ½)) equals Γ((ν+1)/2)/(√(νπ)·Γ(ν/2)) because Γ(½) = √π.
  return -lnBeta(df / 2, 0.5) - 0.5 * Math.log(df) - ((df + 1) / 2) * lnOnePlusR;
}

/**
 * Density of Student's t at x: Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) · (1 + x²/ν)^(−(ν+1)/2).
 *
 * @param x - the point (dimensionless).
 * @param df - degrees of freedom ν, a finite number > 0.
 * @throws RangeError when `df` is not a finite positive number.
 */
export function studentTDensity(x: number, df: number): number {
  assertDegreesOfFreedom(df);
  if (!Number.isFinite(x)) return Number.isNaN(x) ? Number.NaN : 0;
  return Math.exp(studentTLogDensity(x, df));
}

/**
 * Cumulative distribution function of Student's t, P(T ≤ x).
 *
 * @param x - the point (dimensionless; ±Infinity allowed).
 * @param df - degrees of freedom ν, a finite number > 0 (need not be an integer).
 * @returns P(T ≤ x) in [0, 1], relatively accurate in both tails.
 * @throws RangeError when `df` is not a finite positive number.
 */
export function studentTCdf(x: number, df: number): number {
  assertDegreesOfFreedom(df);
  if (Number.isNaN(x)) return Number.NaN;
  const tails = studentTTails(Math.abs(x), df);
  return x < 0 ? tails.upper : 0.5 + tails.central;
}
