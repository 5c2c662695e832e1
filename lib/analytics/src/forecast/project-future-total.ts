/**
 * Month-end style projection: fit a linear trend to (t, cost) history and predict the total
 * over future times, each prediction floored at zero (costs cannot be negative).
 *
 * The floor applies to the point prediction only; the half-width is the unfloored Gaussian
 * prediction interval for the sum (see ./prediction-interval.ts), so `predictedSum ± halfWidth`
 * is an approximation near zero and the caller should clamp the lower bound at 0 if needed.
 */
import { ols } from '../regression/ols.ts';
import type { LinearFit } from '../regression/ols.ts';
import { predictionIntervalForSum } from './prediction-interval.ts';

/** One historical observation: `t` is time in any consistent unit (e.g. day index), `cost` any amount. */
export interface CostPoint {
  readonly t: number;
  readonly cost: number;
}

/** Options of {@link projectFutureTotal}. */
export interface ProjectFutureTotalOptions {
  /** History to fit; at least 3 points with at least two distinct `t`. */
  readonly points: readonly CostPoint[];
  /** Times to predict, in the same unit as `points[].t`; may be empty. */
  readonly futureTs: readonly number[];
  /** Two-sided coverage probability in (0, 1). Default 0.8. */
  readonly confidence?: number;
  /** Floor each single prediction a + b·t_j at 0 before summing. Default true. */
  readonly floorAtZero?: boolean;
}

/** The projection, in cost units. */
export interface FutureTotal {
  /** Σ_j max(0, a + b·t_j) (or the plain sum when `floorAtZero` is false). */
  readonly predictedSum: number;
  /** Half-width of the prediction interval for the sum; not affected by the floor. */
  readonly halfWidth: number;
  /** The underlying least-squares fit of cost on t. */
  readonly fit: LinearFit;
}

/**
 * Fits cost = a + b·t by OLS and projects the total cost over `futureTs`.
 *
 * @throws RangeError as `ols` does (fewer than 3 points, constant t, non-finite values) and as
 *   `predictionIntervalForSum` does (confidence outside (0, 1), non-finite future t).
 * @example
 * projectFutureTotal({ points: [{ t: 1, cost: 3.1 }, { t: 2, cost: 3.4 }, { t: 3, cost: 3.2 }], futureTs: [4, 5] })
 */
export function projectFutureTotal(options: ProjectFutureTotalOptions): FutureTotal {
  const { points, futureTs, confidence = 0.8, floorAtZero = true } = options;
  const fit = ols(points.map((p) => ({ x: p.t, y: p.cost })));
  const { halfWidth } = predictionIntervalForSum({ fit, futureXs: futureTs, confidence });
  let predictedSum = 0;
  for (const t of futureTs) {
    const predicted = fit.intercept + fit.slope * t;
    predictedSum += floorAtZero ? Math.max(0, predicted) : predicted;
  }
  return { predictedSum, halfWidth, fit };
}
