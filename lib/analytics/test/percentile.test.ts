import test from 'ava';
import { percentileCont } from '../src/index.ts';

test('percentileCont of an empty sample is null', (t) => {
  t.is(percentileCont([], 0.5), null);
});

test('percentileCont of a single value is that value for every p', (t) => {
  for (const p of [0, 0.3, 0.95, 1]) t.is(percentileCont([42], p), 42);
});

test('percentileCont of two values interpolates linearly between them', (t) => {
  t.is(percentileCont([10, 20], 0), 10);
  t.is(percentileCont([10, 20], 0.25), 12.5);
  t.is(percentileCont([10, 20], 0.5), 15);
  t.is(percentileCont([10, 20], 1), 20);
});

test('the 95th percentile of 1..20 is 19.05 (position 0.95 × 19 = 18.05)', (t) => {
  const values = Array.from({ length: 20 }, (_, i) => i + 1);
  const result = percentileCont(values, 0.95);
  t.true(Math.abs((result as number) - 19.05) < 1e-12, String(result));
});

test('percentileCont sorts unsorted input without modifying it', (t) => {
  const values = [9, 1, 5, 3, 7];
  t.is(percentileCont(values, 0.5), 5);
  t.is(percentileCont(values, 0.1), 1.8); // position 0.4 between 1 and 3
  t.deepEqual(values, [9, 1, 5, 3, 7]);
});

test('percentileCont hits exact order statistics when p·(n - 1) is an integer', (t) => {
  t.is(percentileCont([4, 1, 3, 2, 5], 0.75), 4);
});

test('percentileCont rejects p outside [0, 1] and NaN values', (t) => {
  t.throws(() => percentileCont([1, 2], 95), { instanceOf: RangeError });
  t.throws(() => percentileCont([1, 2], -0.1), { instanceOf: RangeError });
  t.throws(() => percentileCont([1, Number.NaN], 0.5), { instanceOf: RangeError });
});
