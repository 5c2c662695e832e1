/**
 * Prediction interval for the SUM of k future responses under a fitted simple linear model.
 *
 * Model: y = α + β·x + e with e iid N(0, σ²); the k future responses y_j at x_j are
 * independent of the n observations used for the fit. Derivation (3 lines):
 *   Σ_j ŷ_j = k·ȳ + b·Σ_j (x_j − x̄), with Var(ȳ) = σ²/n, Var(b) = σ²/Sxx, Cov(ȳ, b) = 0;
 *   so Var(Σ ŷ_j) = σ²[k²/n + (Σ_j (x_j − x̄))²/Sxx], and Var(Σ y_j) = k·σ² independently;
 *   hence Var(Σ ŷ_j − Σ y_j) = σ²[k + k²/n + (Σ_j (x_j − x̄))²/Sxx], and replacing σ by s
 *   gives a pivot with the Student t distribution on n − 2 degrees of freedom.
 * Source: Montgomery, Peck & Vining, Introduction to Linear Regression Analysis (5th ed.),
 * §2.2.2 (moments of the estimators) and §2.4.2 (prediction of new observations); for k = 1
 * this is their eq. 2.45, ŷ₀ ± t·s·sqrt(1 + 1/n + (x₀ − x̄)²/Sxx).
 */
import { studentTQuantile } from '../distributions/student-t-quantile.ts';
import type { LinearFit } from '../regression/ols.ts';

/** The fitted quantities the interval needs; a {@link LinearFit} from `ols` satisfies it. */
export type FitSummary = Pick<LinearFit, 'intercept' | 'slope' | 'residualStandardError' | 'n' | 'meanX' | 'sxx'>;

/** Options of {@link predictionIntervalForSum}. */
export interface SumPredictionOptions {
  /** The fitted line (from `ols` / `fitLinear`). */
  readonly fit: FitSummary;
  /** The x values of the k future observations, in the fit's x-units; may be empty. */
  readonly futureXs: readonly number[];
  /** Two-sided coverage probability in (0, 1). Default 0.8 (uses t(0.90, n − 2)). */
  readonly confidence?: number;
}

/** A point prediction and the half-width of its symmetric interval, both in y-units. */
export interface SumPrediction {
  /** Σ_j (a + b·x_j), unfloored. 0 when there are no future xs. */
  readonly sum: number;
  /** t(1 − (1 − confidence)/2, n − 2) · s · sqrt(k + k²/n + (Σ_j (x_j − x̄))²/Sxx); ≥ 0. */
  readonly halfWidth: number;
}

/** Throws unless 0 < confidence < 1. */
function assertConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be in (0, 1) (got ${confidence})`);
  }
}

/**
 * Prediction interval for the sum of k future observations: `sum ± halfWidth`.
 *
 * Returns halfWidth 0 when k = 0 or when the fit is exact (s = 0). For k = 1 it reduces to
 * the textbook single-point prediction interval.
 *
 * @throws RangeError when `confidence` is not in (0, 1), a future x is not finite, or the
 *   fit has n < 3 or Sxx ≤ 0.
 * @example
 * const fit = ols(days.map((x, i) => ({ x, y: costs[i] })));
 * const { sum, halfWidth } = predictionIntervalForSum({ fit, futureXs: [8, 9, 10] });
 */
export function predictionIntervalForSum(options: SumPredictionOptions): SumPrediction {
  const { fit, futureXs, confidence = 0.8 } = options;
  assertConfidence(confidence);
  if (!(fit.n >= 3 && fit.sxx > 0)) {
    throw new RangeError(`prediction needs a fit with n >= 3 and Sxx > 0 (got n=${fit.n}, sxx=${fit.sxx})`);
  }
  const k = futureXs.length;
  let sum = 0;
  let sumCentred = 0;
  for (const x of futureXs) {
    if (!Number.isFinite(x)) throw new RangeError(`future x values must be finite (got ${x})`);
    sum += fit.intercept + fit.slope * x;
    sumCentred += x - fit.meanX;
  }
  if (k === 0 || fit.residualStandardError === 0) return { sum, halfWidth: 0 };
  const varianceFactor = k + (k * k) / fit.n + (sumCentred * sumCentred) / fit.sxx;
  const t = studentTQuantile(1 - (1 - confidence) / 2, fit.n - 2);
  return { sum, halfWidth: t * fit.residualStandardError * Math.sqrt(varianceFactor) };
}
