/**
 * Ordinary least squares for the simple linear model y = a + b·x + e.
 *
 * Uses the two-pass, centred-sums formulation (means first, then sums of
 * centred products), which avoids the catastrophic cancellation of the
 * one-pass "Σx² − n·x̄²" form. Source: Montgomery, Peck & Vining,
 * Introduction to Linear Regression Analysis (5th ed.), §2.2.1–2.2.3 for the
 * estimators; Chan, Golub & LeVeque (1983), "Algorithms for computing the
 * sample variance", The American Statistician 37(3), for the numerical argument.
 */

/** One observation of the regression: `x` is the regressor, `y` the response (any units). */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** The result of {@link ols}. Units follow the inputs: `slope` is y-units per x-unit. */
export interface LinearFit {
  /** Intercept a = ȳ − b·x̄, in y-units. */
  readonly intercept: number;
  /** Slope b = Sxy / Sxx, in y-units per x-unit. */
  readonly slope: number;
  /** Residual standard error s = sqrt(SSE / (n − 2)), in y-units. */
  readonly residualStandardError: number;
  /** Number of observations (≥ 3). */
  readonly n: number;
  /** Mean of the x values, x̄, in x-units. */
  readonly meanX: number;
  /** Mean of the y values, ȳ, in y-units. */
  readonly meanY: number;
  /** Centred sum of squares Sxx = Σ(x − x̄)², in x-units². Always > 0. */
  readonly sxx: number;
  /** Residual sum of squares SSE = Σ(y − a − b·x)², in y-units². */
  readonly sse: number;
  /** Coefficient of determination R² = 1 − SSE/Syy; 1 when all y are equal (perfect fit). */
  readonly rSquared: number;
}

/**
 * Fits y = a + b·x by ordinary least squares with centred sums.
 *
 * @param points - observations; at least 3, all coordinates finite.
 * @returns the fitted line, its residual standard error and the sufficient statistics
 *   (`n`, `meanX`, `sxx`) needed for prediction intervals.
 * @throws RangeError when fewer than 3 points are given (n − 2 residual degrees of
 *   freedom must be positive), when a coordinate is not finite, or when all x are equal
 *   (Sxx = 0: the slope is not identifiable).
 */
export function ols(points: readonly Point[]): LinearFit {
  const n = points.length;
  if (n < 3) {
    throw new RangeError(`ols needs at least 3 points (got ${n}): the residual standard error has n - 2 degrees of freedom`);
  }
  let sumX = 0;
  let sumY = 0;
  for (const { x, y } of points) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new RangeError(`ols needs finite coordinates (got x=${x}, y=${y})`);
    }
    sumX += x;
    sumY += y;
  }
  const meanX = sumX / n;
  const meanY = sumY / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    const dx = x - meanX;
    const dy = y - meanY;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx === 0) {
    throw new RangeError('ols needs at least two distinct x values (Sxx = 0: constant x)');
  }
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  let sse = 0;
  for (const { x, y } of points) {
    const r = y - intercept - slope * x;
    sse += r * r;
  }
  return {
    intercept,
    slope,
    residualStandardError: Math.sqrt(sse / (n - 2)),
    n,
    meanX,
    meanY,
    sxx,
    sse,
    rSquared: syy === 0 ? 1 : 1 - sse / syy,
  };
}

/**
 * Convenience form of {@link ols} taking parallel arrays.
 *
 * @param xs - regressor values.
 * @param ys - response values; same length as `xs`.
 * @throws RangeError when the lengths differ, plus every condition of {@link ols}.
 */
export function fitLinear(xs: readonly number[], ys: readonly number[]): LinearFit {
  if (xs.length !== ys.length) {
    throw new RangeError(`fitLinear needs xs and ys of equal length (got ${xs.length} and ${ys.length})`);
  }
  return ols(xs.map((x, i) => ({ x, y: ys[i] as number })));
}
