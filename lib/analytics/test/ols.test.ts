import test from 'ava';
import { fitLinear, ols } from '../src/index.ts';

// NIST StRD "Norris" linear regression data set (lower difficulty), 36 observations,
// certified values to 15 significant digits. https://www.itl.nist.gov/div898/strd/lls/data/Norris.shtml
const norrisY = [
  0.1, 338.8, 118.1, 888.0, 9.2, 228.1, 668.5, 998.5, 449.1, 778.9, 559.2, 0.3, 0.1, 778.1, 668.8, 339.3, 448.9, 10.8, 557.7, 228.3, 998.0,
  888.8, 119.6, 0.3, 0.6, 557.6, 339.3, 888.0, 998.5, 778.9, 10.2, 117.6, 228.9, 668.4, 449.2, 0.2,
];
const norrisX = [
  0.2, 337.4, 118.2, 884.6, 10.1, 226.5, 666.3, 996.3, 448.6, 777.0, 558.2, 0.4, 0.6, 775.5, 666.9, 338.0, 447.5, 11.6, 556.0, 228.1, 995.8,
  887.6, 120.2, 0.3, 0.3, 556.8, 339.1, 887.2, 999.0, 779.0, 11.1, 118.3, 229.2, 669.1, 448.9, 0.5,
];

const relErr = (actual: number, expected: number): number => Math.abs(actual - expected) / Math.abs(expected);

test('ols reproduces the NIST Norris certified intercept, slope and residual SD to 1e-9 relative', (t) => {
  const fit = fitLinear(norrisX, norrisY);
  t.is(fit.n, 36);
  t.true(relErr(fit.intercept, -0.262323073774029) < 1e-9, `intercept ${fit.intercept}`);
  t.true(relErr(fit.slope, 1.00211681802045) < 1e-9, `slope ${fit.slope}`);
  t.true(relErr(fit.residualStandardError, 0.884796396144373) < 1e-9, `s ${fit.residualStandardError}`);
  t.true(relErr(fit.rSquared, 0.999993745883712) < 1e-9, `R² ${fit.rSquared}`);
});

test('ols returns the mean of x and the centred sum of squares Sxx', (t) => {
  const fit = ols([
    { x: 1, y: 2 },
    { x: 2, y: 4 },
    { x: 3, y: 7 },
  ]);
  t.is(fit.meanX, 2);
  t.is(fit.sxx, 2);
  t.is(fit.slope, 2.5);
  t.true(Math.abs(fit.intercept - (13 / 3 - 5)) < 1e-15);
});

test('ols recovers an exact line with zero residual standard error', (t) => {
  const fit = ols([0, 1, 2, 3, 4].map((x) => ({ x, y: 3 - 0.5 * x })));
  t.is(fit.slope, -0.5);
  t.is(fit.intercept, 3);
  t.is(fit.residualStandardError, 0);
});

test('ols stays accurate when x is a large epoch-like offset (centred sums)', (t) => {
  const base = 1.7e12;
  const fit = ols([0, 1, 2, 3].map((i) => ({ x: base + i * 86_400_000, y: 10 + i })));
  t.true(relErr(fit.slope, 1 / 86_400_000) < 1e-9);
  t.true(fit.residualStandardError < 1e-6);
});

test('ols rejects fewer than three points with a RangeError', (t) => {
  t.throws(
    () =>
      ols([
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ]),
    { instanceOf: RangeError, message: /at least 3 points/ },
  );
  t.throws(() => ols([]), { instanceOf: RangeError });
});

test('ols rejects a constant x with a RangeError', (t) => {
  t.throws(() => fitLinear([5, 5, 5], [1, 2, 3]), { instanceOf: RangeError, message: /constant x/ });
});

test('ols rejects non-finite coordinates and fitLinear rejects arrays of unequal length', (t) => {
  t.throws(() => fitLinear([1, 2, Number.NaN], [1, 2, 3]), { instanceOf: RangeError, message: /finite/ });
  t.throws(() => fitLinear([1, 2, 3], [1, 2]), { instanceOf: RangeError, message: /equal length/ });
});
