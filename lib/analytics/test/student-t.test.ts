import test from 'ava';
import { studentTCdf, studentTQuantile } from '../src/index.ts';

const relErr = (actual: number, expected: number): number => Math.abs(actual - expected) / Math.abs(expected);

// Reference quantiles (nearest doubles), each confirmed to 40 significant digits by an independent route
// (mpmath: quad-integrating the t density from 0 and root-finding CDF = p; also agrees with
// the incomplete-beta form). Two values circulated in the original brief were wrong and are
// NOT used: t(0.90, 30) = 1.310415025264786 (off by 9.7e-11 relative) and
// t(0.90, 120) = 1.288645958560268 (off by 2.1e-7 relative).
const references: ReadonlyArray<readonly [p: number, df: number, quantile: number]> = [
  [0.9, 1, 3.077683537175254],
  [0.9, 2, 1.885618083164127],
  [0.9, 5, 1.4758840488244813],
  [0.9, 10, 1.3721836411103359],
  [0.9, 30, 1.3104150253913958],
  [0.975, 10, 2.2281388519862744],
  [0.9, 120, 1.288646233656378],
];

for (const [p, df, expected] of references) {
  test(`studentTQuantile(${p}, ${df}) matches the reference ${expected} to 1e-9 relative`, (t) => {
    const actual = studentTQuantile(p, df);
    t.true(relErr(actual, expected) < 1e-9, `got ${actual}`);
  });
}

test('studentTQuantile is antisymmetric: t(1 - p) = -t(p)', (t) => {
  for (const df of [1, 2, 3, 7.5, 30, 500]) {
    for (const small of [1e-12, 0.001, 0.05, 0.1, 0.3, 0.45]) {
      const high = 1 - small;
      const low = 1 - high; // exactly the complement of `high` (Sterbenz), unlike `small`
      t.is(studentTQuantile(high, df), -studentTQuantile(low, df), `p=${low} df=${df}`);
    }
  }
});

test('studentTQuantile agrees with the closed forms for 1 and 2 degrees of freedom, tails included', (t) => {
  for (const p of [1e-200, 1e-10, 0.001, 0.1, 0.3, 0.4999, 0.6, 0.9, 0.999]) {
    const q = Math.min(p, 1 - p);
    const sign = p < 0.5 ? -1 : 1;
    const cauchy = sign / Math.tan(Math.PI * q); // ν = 1: Cauchy quantile
    const df2 = (sign * (1 - 2 * q)) / Math.sqrt(2 * q * (1 - q)); // ν = 2
    t.true(relErr(studentTQuantile(p, 1), cauchy) < 1e-12, `ν=1 p=${p}`);
    t.true(relErr(studentTQuantile(p, 2), df2) < 1e-12, `ν=2 p=${p}`);
  }
});

// Independent check: for integer ν the density constant Γ((ν+1)/2)/Γ(ν/2) follows from the
// recurrence r(ν + 2) = r(ν)·(ν + 1)/ν with r(1) = 1/√π, r(2) = √π/2; composite Simpson's
// rule then integrates the density from 0 to the quantile, which must give p − ½.
function densityConstant(df: number): number {
  let r = df % 2 === 1 ? 1 / Math.sqrt(Math.PI) : Math.sqrt(Math.PI) / 2;
  for (let v = df % 2 === 1 ? 1 : 2; v < df; v += 2) r *= (v + 1) / v;
  return r / Math.sqrt(df * Math.PI);
}

function simpson(f: (x: number) => number, a: number, b: number, intervals: number): number {
  const h = (b - a) / intervals;
  let sum = f(a) + f(b);
  for (let i = 1; i < intervals; i++) sum += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return (sum * h) / 3;
}

test('the probability mass between 0 and studentTQuantile(p, ν), integrated numerically, equals p - 1/2', (t) => {
  for (const [p, df] of [
    [0.9, 5],
    [0.9, 30],
    [0.9, 120],
    [0.975, 10],
    [0.7, 3],
  ] as const) {
    const k = densityConstant(df);
    const density = (x: number): number => k * Math.pow(1 + (x * x) / df, -(df + 1) / 2);
    const mass = simpson(density, 0, studentTQuantile(p, df), 2000);
    t.true(Math.abs(mass - (p - 0.5)) < 1e-12, `p=${p} ν=${df}: mass ${mass}`);
  }
});

test('studentTCdf inverts studentTQuantile across probabilities and degrees of freedom', (t) => {
  for (const df of [0.7, 1, 4, 19, 250]) {
    for (const p of [1e-8, 0.02, 0.2, 0.5, 0.65, 0.9, 0.999]) {
      const back = studentTCdf(studentTQuantile(p, df), df);
      t.true(relErr(back, p) < 1e-12, `p=${p} ν=${df}: ${back}`);
    }
  }
});

test('studentTQuantile returns 0 at p = 1/2 and infinities at 0 and 1', (t) => {
  t.is(studentTQuantile(0.5, 7), 0);
  t.is(studentTQuantile(0, 7), -Infinity);
  t.is(studentTQuantile(1, 7), Infinity);
});

test('studentTQuantile rejects probabilities outside [0, 1] and non-positive degrees of freedom', (t) => {
  t.throws(() => studentTQuantile(1.1, 5), { instanceOf: RangeError });
  t.throws(() => studentTQuantile(Number.NaN, 5), { instanceOf: RangeError });
  t.throws(() => studentTQuantile(0.9, 0), { instanceOf: RangeError });
  t.throws(() => studentTQuantile(0.9, Number.POSITIVE_INFINITY), { instanceOf: RangeError });
});
