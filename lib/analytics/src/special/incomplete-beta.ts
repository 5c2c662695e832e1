/**
 * Regularized incomplete beta function I_x(a, b) and its complement.
 *
 * Continued fraction of Numerical Recipes (Press et al., 3rd ed., 2007, §6.4,
 * eq. 6.4.5–6.4.6, routine betacf), evaluated with the modified Lentz method
 * (Lentz 1976; Thompson & Barnett 1986; NR §5.2). The fraction converges fast for
 * x < (a + 1)/(a + b + 2); otherwise the symmetry I_x(a, b) = 1 − I_{1−x}(b, a)
 * is used (NR eq. 6.4.3). Whichever of the pair is computed directly is accurate to
 * a few ulps *relative*; the other is 1 minus it (accurate in absolute terms).
 */
import { lnBeta } from './log-gamma.ts';

const MAX_ITERATIONS = 100_000;
const EPSILON = 1e-16;
const TINY = 1e-300;

/** Continued fraction for I_x(a, b) (NR eq. 6.4.5), modified Lentz. */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    // even step d_{2m}
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    // odd step d_{2m+1}
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) return h;
  }
  throw new RangeError(`incomplete beta continued fraction did not converge (a=${a}, b=${b}, x=${x})`);
}

/** I_x(a, b) and 1 − I_x(a, b), each accurate where it is the smaller-error side. */
export interface BetaPair {
  readonly lower: number;
  readonly upper: number;
}

/**
 * Regularized incomplete beta pair for a, b > 0 at x ∈ [0, 1].
 *
 * The caller passes x and y = 1 − x and their logarithms separately so that
 * neither has to be formed by a cancelling subtraction.
 */
export function regularizedBeta(a: number, b: number, x: number, y: number, lnX: number, lnY: number): BetaPair {
  // Test the logarithms, not x and y: x may underflow to 0 while a·ln x is still representable.
  if (lnX === -Infinity) return { lower: 0, upper: 1 };
  if (lnY === -Infinity) return { lower: 1, upper: 0 };
  const front = Math.exp(a * lnX + b * lnY - lnBeta(a, b));
  if (x < (a + 1) / (a + b + 2)) {
    const lower = (front * betaContinuedFraction(a, b, x)) / a;
    return { lower, upper: 1 - lower };
  }
  const upper = (front * betaContinuedFraction(b, a, y)) / b;
  return { lower: 1 - upper, upper };
}
