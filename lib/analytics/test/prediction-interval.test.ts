import test from 'ava';
import { ols, predictionIntervalForSum, projectFutureTotal } from '../src/index.ts';

const relErr = (actual: number, expected: number): number => Math.abs(actual - expected) / Math.abs(expected);

// Reference t quantiles (40-digit mpmath values, rounded to doubles); using them keeps the
// interval check independent of this library's studentTQuantile.
const T_090_DF5 = 1.4758840488244813;
const T_0975_DF10 = 2.2281388519862744;

/**
 * Independent route: the matrix form of the linear model (MPV §3.3 / §3.5).
 * β = (XᵀX)⁻¹Xᵀy with an explicit 2×2 inverse, s² = SSE/(n − 2), and for the sum of the
 * rows of X₀: Var(Σŷ − Σy) = σ²·(k + 1ᵀX₀(XᵀX)⁻¹X₀ᵀ1).
 */
function matrixRoute(xs: number[], ys: number[], futureXs: number[], t: number): { sum: number; halfWidth: number } {
  const n = xs.length;
  const sx = xs.reduce((a, x) => a + x, 0);
  const sxx = xs.reduce((a, x) => a + x * x, 0);
  const sy = ys.reduce((a, y) => a + y, 0);
  const sxy = xs.reduce((a, x, i) => a + x * (ys[i] as number), 0);
  const det = n * sxx - sx * sx;
  const inv = [
    [sxx / det, -sx / det],
    [-sx / det, n / det],
  ] as const;
  const b0 = inv[0][0] * sy + inv[0][1] * sxy;
  const b1 = inv[1][0] * sy + inv[1][1] * sxy;
  const sse = xs.reduce((a, x, i) => a + ((ys[i] as number) - b0 - b1 * x) ** 2, 0);
  const s = Math.sqrt(sse / (n - 2));
  const k = futureXs.length;
  const u = [k, futureXs.reduce((a, x) => a + x, 0)] as const; // X₀ᵀ1
  const quad = u[0] * (inv[0][0] * u[0] + inv[0][1] * u[1]) + u[1] * (inv[1][0] * u[0] + inv[1][1] * u[1]);
  return { sum: k * b0 + b1 * u[1], halfWidth: t * s * Math.sqrt(k + quad) };
}

const weekXs = [1, 2, 3, 4, 5, 6, 7];
const weekYs = [12.1, 13.4, 12.9, 15.2, 15.8, 16.1, 18.4];
const fitWeek = ols(weekXs.map((x, i) => ({ x, y: weekYs[i] as number })));
const next24Days = Array.from({ length: 24 }, (_, j) => 8 + j);

test('the 80% interval for the sum of 24 future days matches the matrix-form reference to 1e-9', (t) => {
  const actual = predictionIntervalForSum({ fit: fitWeek, futureXs: next24Days });
  const expected = matrixRoute(weekXs, weekYs, next24Days, T_090_DF5);
  t.true(relErr(actual.sum, expected.sum) < 1e-9, `sum ${actual.sum} vs ${expected.sum}`);
  t.true(relErr(actual.halfWidth, expected.halfWidth) < 1e-9, `halfWidth ${actual.halfWidth} vs ${expected.halfWidth}`);
});

test('a 95% interval uses the 0.975 t quantile and matches the matrix-form reference', (t) => {
  const xs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const ys = [5, 7, 6, 9, 8, 11, 10, 13, 12, 12, 15, 14];
  const fit = ols(xs.map((x, i) => ({ x, y: ys[i] as number })));
  const future = [12, 13, 20];
  const actual = predictionIntervalForSum({ fit, futureXs: future, confidence: 0.95 });
  const expected = matrixRoute(xs, ys, future, T_0975_DF10);
  t.true(relErr(actual.halfWidth, expected.halfWidth) < 1e-9);
  t.true(relErr(actual.sum, expected.sum) < 1e-9);
});

test('with one future point the interval is the textbook t·s·sqrt(1 + 1/n + (x0 - x̄)²/Sxx)', (t) => {
  const x0 = 10;
  const actual = predictionIntervalForSum({ fit: fitWeek, futureXs: [x0] });
  const { n, meanX, sxx, residualStandardError: s } = fitWeek;
  const textbook = T_090_DF5 * s * Math.sqrt(1 + 1 / n + (x0 - meanX) ** 2 / sxx);
  t.true(relErr(actual.halfWidth, textbook) < 1e-12);
  t.true(relErr(actual.sum, fitWeek.intercept + fitWeek.slope * x0) < 1e-15);
});

test('no future points give a zero sum and a zero half-width', (t) => {
  t.deepEqual(predictionIntervalForSum({ fit: fitWeek, futureXs: [] }), { sum: 0, halfWidth: 0 });
});

test('an exact fit (s = 0) gives a zero half-width', (t) => {
  const fit = ols([1, 2, 3, 4].map((x) => ({ x, y: 2 * x + 1 })));
  const result = predictionIntervalForSum({ fit, futureXs: [5, 6] });
  t.is(result.halfWidth, 0);
  t.is(result.sum, 11 + 13);
});

test('the half-width grows with the distance of the future points from the mean of x', (t) => {
  const near = predictionIntervalForSum({ fit: fitWeek, futureXs: [4] }).halfWidth;
  const far = predictionIntervalForSum({ fit: fitWeek, futureXs: [40] }).halfWidth;
  t.true(far > near);
});

test('predictionIntervalForSum rejects a confidence outside (0, 1) and non-finite future xs', (t) => {
  t.throws(() => predictionIntervalForSum({ fit: fitWeek, futureXs: [8], confidence: 1 }), { instanceOf: RangeError });
  t.throws(() => predictionIntervalForSum({ fit: fitWeek, futureXs: [8], confidence: 0 }), { instanceOf: RangeError });
  t.throws(() => predictionIntervalForSum({ fit: fitWeek, futureXs: [Number.NaN] }), { instanceOf: RangeError });
});

test('projectFutureTotal floors each prediction at zero but keeps the unfloored half-width', (t) => {
  // Falling costs: a + b·t crosses zero at t = 10, so predictions for t > 10 are negative.
  const points = [0, 1, 2, 3, 4, 5].map((tt) => ({ t: tt, cost: 10 - tt + (tt % 2 === 0 ? 0.3 : -0.3) }));
  const futureTs = [8, 9, 10, 11, 12, 13];
  const result = projectFutureTotal({ points, futureTs });
  const { fit } = result;
  const floored = futureTs.reduce((acc, tt) => acc + Math.max(0, fit.intercept + fit.slope * tt), 0);
  t.true(relErr(result.predictedSum, floored) < 1e-12);
  const raw = predictionIntervalForSum({ fit, futureXs: futureTs });
  t.true(raw.sum < result.predictedSum, 'the floor removed negative predictions');
  t.is(result.halfWidth, raw.halfWidth);
});

test('projectFutureTotal without the floor returns the plain sum of predictions', (t) => {
  const points = [0, 1, 2, 3].map((tt) => ({ t: tt, cost: 3 - tt }));
  const result = projectFutureTotal({ points, futureTs: [4, 5], floorAtZero: false, confidence: 0.9 });
  t.true(Math.abs(result.predictedSum - (-1 + -2)) < 1e-12);
  t.is(result.halfWidth, 0);
});

test('projectFutureTotal rejects a history of fewer than three points', (t) => {
  t.throws(
    () =>
      projectFutureTotal({
        points: [
          { t: 0, cost: 1 },
          { t: 1, cost: 2 },
        ],
        futureTs: [2],
      }),
    {
      instanceOf: RangeError,
    },
  );
});
