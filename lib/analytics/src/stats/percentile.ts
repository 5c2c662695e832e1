/**
 * Continuous percentile with linear interpolation, identical to PostgreSQL's
 * `percentile_cont(p) WITHIN GROUP (ORDER BY v)`: with the values sorted ascending as
 * v[0..n−1], position h = p·(n − 1); the result is v[⌊h⌋] + (h − ⌊h⌋)·(v[⌈h⌉] − v[⌊h⌋]).
 * Source: PostgreSQL src/backend/utils/adt/orderedsetaggs.c (percentile_cont_final_common);
 * the same rule is Hyndman & Fan (1996) definition 7, the default of R's quantile().
 */

/**
 * The p-th continuous percentile of `values` (PostgreSQL `percentile_cont` semantics).
 *
 * @param values - the sample, sorted or not (it is not modified); NaN values are not allowed.
 * @param p - fraction in [0, 1] (0.95 for the 95th percentile, not 95).
 * @returns the interpolated percentile in the values' units, or null for an empty sample
 *   (as PostgreSQL returns NULL over no rows).
 * @throws RangeError when p is outside [0, 1] or a value is NaN.
 * @example percentileCont([1, 2, 3, 4], 0.5) // 2.5
 */
export function percentileCont(values: readonly number[], p: number): number | null {
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`percentileCont needs p in [0, 1] (got ${p})`);
  }
  if (values.length === 0) return null;
  const sorted = [...values];
  for (const v of sorted) {
    if (Number.isNaN(v)) throw new RangeError('percentileCont cannot order NaN values');
  }
  sorted.sort((a, b) => a - b);
  const position = p * (sorted.length - 1);
  const lowerIndex = Math.floor(position);
  const upperIndex = Math.ceil(position);
  const lower = sorted[lowerIndex] as number;
  const upper = sorted[upperIndex] as number;
  // PostgreSQL computes first + (proportion × (second − first)); same order of operations here.
  return lowerIndex === upperIndex ? lower : lower + (position - lowerIndex) * (upper - lower);
}
