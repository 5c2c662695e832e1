/**
 * Logarithms of the gamma and beta functions for positive real arguments.
 *
 * lnΓ uses the Stirling series (Abramowitz & Stegun 6.1.40) for x ≥ 10, with the
 * recurrence Γ(x + 1) = x·Γ(x) (A&S 6.1.15) to shift smaller arguments up. Eight
 * Bernoulli terms are kept: the first omitted term is below 2e-18 at x = 10.
 *
 * lnB(a, b) for a large argument avoids the cancellation in lnΓ(q) − lnΓ(q + p)
 * (two numbers of size q·ln q) by expanding both with Stirling and combining
 * the leading parts analytically with log1p, the approach of DiDonato & Morris
 * (1992), ACM TOMS 18(3) "Algorithm 708", routine betaln.
 */

const HALF_LN_TWO_PI = 0.5 * Math.log(2 * Math.PI);
const STIRLING_THRESHOLD = 10;

// B_{2k} / (2k (2k − 1)), k = 1..8 (A&S 6.1.40 with Bernoulli numbers from A&S Table 23.2).
const STIRLING_COEFFICIENTS = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400];

/** Stirling remainder δ(x) = lnΓ(x) − [(x − ½)·ln x − x + ½·ln 2π], valid for x ≥ 10. */
function stirlingRemainder(x: number): number {
  const inv2 = 1 / (x * x);
  let sum = 0;
  for (let k = STIRLING_COEFFICIENTS.length - 1; k >= 0; k--) {
    sum = sum * inv2 + (STIRLING_COEFFICIENTS[k] as number);
  }
  return sum / x;
}

/** ln Γ(x) for x > 0; absolute error ≈ 1e-15 for moderate x. */
export function lnGamma(x: number): number {
  let shift = 0;
  let product = 1;
  let y = x;
  while (y < STIRLING_THRESHOLD) {
    product *= y;
    y += 1;
    shift += 1;
  }
  const stirling = (y - 0.5) * Math.log(y) - y + HALF_LN_TWO_PI + stirlingRemainder(y);
  return shift === 0 ? stirling : stirling - Math.log(product);
}

/** ln B(a, b) = lnΓ(a) + lnΓ(b) − lnΓ(a + b) for a, b > 0, without cancellation when one argument is large. */
export function lnBeta(a: number, b: number): number {
  const p = Math.min(a, b);
  const q = Math.max(a, b);
  if (q < STIRLING_THRESHOLD) {
    return lnGamma(p) + lnGamma(q) - lnGamma(p + q);
  }
  // lnΓ(q) − lnΓ(q + p) = −p·ln q − (q + p − ½)·log1p(p/q) + p + δ(q) − δ(q + p)
  const ratio = -p * Math.log(q) - (q + p - 0.5) * Math.log1p(p / q) + p + stirlingRemainder(q) - stirlingRemainder(q + p);
  return lnGamma(p) + ratio;
}
